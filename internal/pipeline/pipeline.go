package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/internal/admission"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/media/video"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/shm"
)

// Options configure a Pipeline. Engine, Fetcher and Decoder are required.
type Options struct {
	Engine  *engine.Engine
	Pool    *shm.Pool // nil: every tensor inline
	Fetcher *fetch.Fetcher
	Decoder imageprep.Decoder
	// Video decodes videos (FFmpeg); nil refuses video input.
	Video *video.Decoder
	// Families match each model folder to its family; nil means the
	// built-in families.
	Families *family.Registry

	// ModelDir is the model folder used for every served model. Empty:
	// each model's files come from its worker (GetTokenizer) into
	// BundleDir.
	ModelDir  string
	BundleDir string

	// CacheBytes is the preprocessed-tensor cache budget (default 512 MiB;
	// negative disables the cache).
	CacheBytes int64
	// CPU bounds decode+preprocess work in parallel across all requests
	// (default GOMAXPROCS).
	CPU int
	// Heavy, when set, runs each media item's CPU work (hashing, decode,
	// resize, patchify) on its low-priority threads, one item per slot, so
	// that text requests are not queued behind image work; each image then
	// uses one thread, and each video frame's resize and patchify is a task
	// of its own (FFmpeg decodes at the process's priority).
	Heavy *cpupool.Pool
	// MediaOrder is the default for requests that set none.
	MediaOrder openai.MediaOrder
	// MaxMediaItems per request (default 16).
	MaxMediaItems int
	// Admission, when set, admits each request with media by its planned
	// tensor bytes (package internal/admission) and counts the tensor
	// cache in the same budget; nil admits every request at once.
	Admission *admission.Controller
	// InlineCopies is how many copies of an inline encoder input exist
	// while it is sent, for the memory plan: the buffer and gRPC's encoded
	// message (2, the default), 3 when a worker in this process (the
	// embedded worker) decodes the message too.
	InlineCopies int
	// Exact reports whether the built-in decoders are Pillow-exact (shown
	// in /health).
	Exact      bool
	Registerer prometheus.Registerer
	Logger     *slog.Logger
}

// Pipeline is the gateway's per-request orchestration (the HTTP server's
// Backend).
type Pipeline struct {
	opts  Options
	front front
	renderAPI
	cache *tensorCache
	m     *metrics
	log   *slog.Logger

	mu     sync.Mutex
	assets map[string]*assetSlot // by served model name, or "" for ModelDir
}

type assetSlot struct {
	once sync.Once
	a    *Assets
	err  error
}

// ErrOptions is returned by New for missing options.
var ErrOptions = errors.New("pipeline: bad options")

// New builds a Pipeline. With a ModelDir the model files are loaded at once,
// so that a bad folder fails at start.
func New(o Options) (*Pipeline, error) {
	if o.Engine == nil || o.Fetcher == nil || o.Decoder == nil {
		return nil, fmt.Errorf("%w: Engine, Fetcher and Decoder are required", ErrOptions)
	}
	if o.CacheBytes == 0 {
		o.CacheBytes = 512 << 20
	}
	if o.CPU <= 0 {
		o.CPU = runtime.GOMAXPROCS(0)
	}
	if o.InlineCopies <= 0 {
		o.InlineCopies = 2
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.ModelDir == "" && o.BundleDir == "" {
		return nil, fmt.Errorf("%w: a ModelDir or a BundleDir is required", ErrOptions)
	}
	var hold *admission.Holder
	if o.Admission != nil {
		hold = o.Admission.Holder("tensor_cache")
	}
	p := &Pipeline{opts: o, cache: newTensorCache(o.CacheBytes, hold), log: o.Logger, assets: map[string]*assetSlot{}}
	p.front = front{models: p, order: o.MediaOrder, maxItems: o.MaxMediaItems, budget: BudgetStrict}
	p.renderAPI = newRenderAPI(p.front, probeStage{fetcher: o.Fetcher, heavy: o.Heavy, contextLen: p.workerContextLength})
	m, err := newMetrics(o.Registerer, p.cache)
	if err != nil {
		return nil, err
	}
	p.m = m
	if o.ModelDir != "" {
		if _, err := p.assetsFor(context.Background(), ""); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// assetsFor returns the model files for a served model, loading them once.
func (p *Pipeline) assetsFor(ctx context.Context, model string) (*Assets, error) {
	key := model
	if p.opts.ModelDir != "" {
		key = ""
	}
	p.mu.Lock()
	slot := p.assets[key]
	if slot == nil {
		slot = &assetSlot{}
		p.assets[key] = slot
	}
	p.mu.Unlock()
	slot.once.Do(func() {
		dir := p.opts.ModelDir
		if dir == "" {
			dir = filepath.Join(p.opts.BundleDir, safeName(model))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				slot.err = err
				return
			}
			if _, err := p.opts.Engine.FetchBundle(ctx, model, dir); err != nil {
				slot.err = err
				return
			}
		}
		workers := 0
		var run func(context.Context, func()) error
		if p.opts.Heavy != nil {
			workers, run = 1, p.opts.Heavy.Run
		}
		slot.a, slot.err = LoadAssets(dir, AssetOptions{Families: p.opts.Families, Decoder: p.opts.Decoder, Video: p.opts.Video,
			Concurrency: p.opts.CPU, Workers: workers, Run: run})
		if slot.err == nil {
			p.log.Info("model files loaded", "model", model, "dir", dir)
		}
	})
	if slot.err != nil {
		// Let a later request try again (the worker may come back).
		p.mu.Lock()
		if p.assets[key] == slot {
			delete(p.assets, key)
		}
		p.mu.Unlock()
	}
	return slot.a, slot.err
}

func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] == '.' {
		return "_" + string(b)
	}
	return string(b)
}

// Models lists the served models, each with its context length: its
// workers', else (with a ModelDir) the model files'.
func (p *Pipeline) Models() []openai.Model {
	ms := p.opts.Engine.Models()
	out := make([]openai.Model, 0, len(ms))
	for _, m := range ms {
		n := m.Info.ContextLength
		if n <= 0 && p.opts.ModelDir != "" {
			// Loaded by New: no wait.
			if a, err := p.assetsFor(context.Background(), m.Name); err == nil {
				n = a.ContextLength
			}
		}
		out = append(out, openai.Model{ID: m.Name, Object: "model", Created: m.Info.Fetched.Unix(), OwnedBy: "mmgate", MaxModelLen: n})
	}
	return out
}

// workerContextLength is the context length model's workers report (0
// when none does).
func (p *Pipeline) workerContextLength(model string) int {
	for _, m := range p.opts.Engine.Models() {
		if m.Name == model {
			return m.Info.ContextLength
		}
	}
	return 0
}

// Ready reports whether a healthy worker exists.
func (p *Pipeline) Ready() bool { return p.opts.Engine.Ready() }

// Health details for /health.
func (p *Pipeline) Health() map[string]any {
	workers := []map[string]any{}
	for _, w := range p.opts.Engine.Workers() {
		e := map[string]any{"url": w.URL(), "healthy": w.Healthy(), "in_flight": w.InFlight()}
		if info := w.Info(); info != nil {
			e["model"] = info.Name()
			e["runtime"] = info.Runtime
			e["shm_namespace_match"] = info.NamespaceMatch
		}
		workers = append(workers, e)
	}
	h := map[string]any{"decoders_exact": p.opts.Exact, "video": p.opts.Video != nil, "workers": workers}
	if !p.opts.Exact {
		h["warning"] = "built without cgo: JPEG and lossy WebP pixels are not Pillow-exact"
	}
	if p.opts.Pool != nil {
		pr := p.opts.Pool.Probe()
		segs, bytes := p.opts.Pool.InUse()
		h["shm"] = map[string]any{"dir": pr.Dir, "usable": p.opts.Pool.Usable(), "size": pr.Size, "segments_in_use": segs, "bytes_in_use": bytes}
	}
	cb, ce := p.cache.usage()
	h["tensor_cache"] = map[string]any{"bytes": cb, "entries": ce, "budget": p.opts.CacheBytes}
	if a := p.opts.Admission; a != nil {
		st := a.Stats()
		h["tensor_memory"] = map[string]any{"budget": st.Budget, "per_request": a.PerRequest(), "admitted": st.Admitted,
			"held": st.Held, "waiting_requests": st.Waiting, "waiting_bytes": st.WaitingBytes}
	}
	return h
}
