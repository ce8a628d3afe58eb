package engine

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/vision"
)

// Engine is the gateway's registry of workers: connections, protocol
// detection, health, model info, selection and the Generate client. It is
// safe for concurrent use.
type Engine struct {
	opts   Options
	log    *slog.Logger
	m      *metrics
	protos map[string]protocol.Protocol // by name; Options.Protocols keeps the order
	rr     atomic.Uint64
	// workers is the current worker list, replaced (never modified in
	// place) under mu by Add and Remove, read without a lock.
	workers atomic.Pointer[[]*Worker]

	mu      sync.Mutex
	state   int // 0 new, 1 started, 2 closed
	cancel  context.CancelFunc
	base    context.Context // lives until Close; parent of background calls
	bg      sync.WaitGroup  // health loops and abort calls
	closeMu sync.Once
}

const (
	stateNew = iota
	stateStarted
	stateClosed
)

// New validates the options and creates the workers' gRPC clients (no
// connection is made until Start).
func New(o Options) (*Engine, error) {
	if len(o.Workers) == 0 {
		return nil, fmt.Errorf("engine: no workers: %w", ErrBadOptions)
	}
	if err := o.defaults(); err != nil {
		return nil, err
	}
	m, err := newMetrics(o.Registerer)
	if err != nil {
		return nil, err
	}
	e := &Engine{opts: o, log: o.Logger, m: m, protos: map[string]protocol.Protocol{}}
	for _, p := range o.Protocols {
		if p == nil || p.Name() == "" || e.protos[p.Name()] != nil {
			return nil, fmt.Errorf("engine: protocols must be non-nil with distinct names: %w", ErrBadOptions)
		}
		e.protos[p.Name()] = p
	}
	var list []*Worker
	for _, c := range o.Workers {
		w, err := e.newWorker(c, list)
		if err != nil {
			for _, w := range list {
				w.closeConn()
			}
			return nil, err
		}
		list = append(list, w)
	}
	e.workers.Store(&list)
	return e, nil
}

// defaults checks the engine-wide options and fills in their defaults.
func (o *Options) defaults() error {
	if len(o.Protocols) == 0 {
		return fmt.Errorf("engine: no protocols: %w", ErrBadOptions)
	}
	switch o.Policy {
	case "":
		o.Policy = PolicyLeastLoaded
	case PolicyLeastLoaded, PolicyRoundRobin:
	default:
		return fmt.Errorf("engine: policy %q (want least_loaded or round_robin): %w", o.Policy, ErrBadOptions)
	}
	if o.HealthInterval < 0 || o.HealthTimeout < 0 || o.AbortTimeout < 0 || o.MaxBundleBytes < 0 {
		return fmt.Errorf("engine: negative interval, timeout or size: %w", ErrBadOptions)
	}
	if o.HealthInterval == 0 {
		o.HealthInterval = DefaultHealthInterval
	}
	if o.HealthTimeout == 0 {
		o.HealthTimeout = DefaultHealthTimeout
	}
	if o.AbortTimeout == 0 {
		o.AbortTimeout = DefaultAbortTimeout
	}
	if o.MaxBundleBytes == 0 {
		o.MaxBundleBytes = DefaultMaxBundleBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// newWorker validates c against the engine's protocols and the workers in
// list and creates its (idle) connection.
func (e *Engine) newWorker(c WorkerConfig, list []*Worker) (*Worker, error) {
	s, err := c.settings()
	if err != nil {
		return nil, err
	}
	if s.runtime != "" && e.protos[s.runtime] == nil {
		return nil, fmt.Errorf("engine: worker %s: runtime %q is not one of the protocols %v: %w", c.URL, s.runtime, e.protocolNames(), ErrBadOptions)
	}
	for _, w := range list {
		if w.cfg.target == s.target {
			return nil, fmt.Errorf("engine: worker %s listed twice: %w", c.URL, ErrBadOptions)
		}
	}
	conn, err := grpc.NewClient(s.target, e.dialOptions(s)...)
	if err != nil {
		return nil, fmt.Errorf("engine: worker %s: %v: %w", c.URL, err, ErrBadURL)
	}
	w := &Worker{cfg: s, conn: conn, pool: e.opts.Pool, m: e.m}
	e.m.healthy.WithLabelValues(s.url).Set(0)
	e.m.inflight.WithLabelValues(s.url).Set(0)
	return w, nil
}

func (e *Engine) protocolNames() []string {
	var out []string
	for _, p := range e.opts.Protocols {
		out = append(out, p.Name())
	}
	return out
}

func (e *Engine) dialOptions(s workerSettings) []grpc.DialOption {
	// Reconnect attempts at most every health interval (at least every
	// second at first), so a worker that comes back is found quickly.
	base := min(time.Second, e.opts.HealthInterval)
	bc := backoff.Config{BaseDelay: base, Multiplier: 1.6, Jitter: 0.2, MaxDelay: max(base, e.opts.HealthInterval)}
	creds := insecure.NewCredentials()
	if s.tls != nil {
		creds = credentials.NewTLS(s.tls)
	}
	d := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(s.maxMsg), grpc.MaxCallSendMsgSize(s.maxMsg)),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: bc, MinConnectTimeout: e.opts.HealthTimeout}),
	}
	return append(d, e.opts.DialOptions...)
}

// list is the current worker list; never modify it.
func (e *Engine) list() []*Worker { return *e.workers.Load() }

// Workers returns the current workers, in the order they were configured
// or added.
func (e *Engine) Workers() []*Worker { return slices.Clone(e.list()) }

// Start reaches every worker once (protocol, info, health; in parallel,
// each bounded by HealthTimeout), then runs one health loop per worker until
// ctx ends or Close is called. Workers that cannot be reached yet are not an
// error: their loop keeps trying. Start may be called once.
func (e *Engine) Start(ctx context.Context) error {
	e.mu.Lock()
	if e.state != stateNew {
		e.mu.Unlock()
		return fmt.Errorf("engine: start: %w", ErrClosed)
	}
	e.base, e.cancel = context.WithCancel(ctx)
	e.state = stateStarted
	ws := e.list()
	for _, w := range ws {
		e.bindLoop(w)
	}
	e.mu.Unlock()

	var g errgroup.Group
	for _, w := range ws {
		g.Go(func() error { e.refresh(w.loopCtx, w); return nil })
	}
	_ = g.Wait()
	for _, w := range ws {
		e.goBackground(func() { e.watch(w) })
	}
	return nil
}

// bindLoop gives w the context of its health loop; e.mu is held and the
// engine is started.
func (e *Engine) bindLoop(w *Worker) {
	ctx, cancel := context.WithCancel(e.base)
	w.loopCtx, w.stop = ctx, cancel
}

// Add registers a worker while the engine runs (or before Start). Once
// started, the worker is reached at once in the background and joins the
// rotation when it answers. Errors: those of New for one worker, ErrClosed.
func (e *Engine) Add(c WorkerConfig) (*Worker, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state == stateClosed {
		return nil, fmt.Errorf("engine: add %s: %w", c.URL, ErrClosed)
	}
	cur := e.list()
	w, err := e.newWorker(c, cur)
	if err != nil {
		return nil, err
	}
	next := append(slices.Clone(cur), w)
	e.workers.Store(&next)
	if e.state == stateStarted {
		e.bindLoop(w)
		e.bg.Add(1)
		go func() {
			defer e.bg.Done()
			e.refresh(w.loopCtx, w)
			e.watch(w)
		}()
	}
	return w, nil
}

// Remove takes the worker with that URL out of the registry at once: no new
// request goes to it, streams in flight finish, and its connection closes
// when the last one ends. It reports whether such a worker was registered.
func (e *Engine) Remove(url string) bool {
	e.mu.Lock()
	cur := e.list()
	i := slices.IndexFunc(cur, func(w *Worker) bool { return w.cfg.url == url })
	if i < 0 {
		e.mu.Unlock()
		return false
	}
	w := cur[i]
	next := slices.Delete(slices.Clone(cur), i, i+1)
	e.workers.Store(&next)
	if w.stop != nil {
		w.stop()
	}
	e.mu.Unlock()
	w.setDown("removed")
	w.removed.Store(true)
	if w.inflight.Load() == 0 {
		w.retire()
	}
	e.log.Info("worker removed", "worker", url, "in_flight", w.InFlight())
	return true
}

// goBackground runs f in a goroutine that Close waits for; it does nothing
// once the engine is closed.
func (e *Engine) goBackground(f func()) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state != stateStarted {
		return false
	}
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		f()
	}()
	return true
}

// Close stops the health loops, waits for pending abort calls and closes the
// connections. Streams still open fail. Close is idempotent.
func (e *Engine) Close() error {
	e.closeMu.Do(func() {
		e.mu.Lock()
		e.state = stateClosed
		cancel := e.cancel
		e.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		e.bg.Wait()
		for _, w := range e.list() {
			w.closeConn()
		}
	})
	return nil
}

// Model is one served model name and what its workers report.
type Model struct {
	Name string
	// Info is the info of one of its workers (a healthy one when there is
	// one).
	Info *protocol.Info
	// Workers serve the model (reached at least once); Healthy are in the
	// rotation.
	Workers, Healthy int
}

// Models lists the served models known from workers reached at least once,
// sorted by name.
func (e *Engine) Models() []Model {
	byName := map[string]*Model{}
	for _, w := range e.list() {
		w.mu.RLock()
		info, healthy := w.info, w.healthy
		w.mu.RUnlock()
		if info == nil {
			continue
		}
		m := byName[info.Name()]
		if m == nil {
			m = &Model{Name: info.Name(), Info: info}
			byName[m.Name] = m
		}
		m.Workers++
		if healthy {
			if m.Healthy == 0 {
				m.Info = info
			}
			m.Healthy++
		}
	}
	out := make([]Model, 0, len(byName))
	for _, m := range byName {
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Ready reports whether any worker is healthy.
func (e *Engine) Ready() bool {
	for _, w := range e.list() {
		if w.Healthy() {
			return true
		}
	}
	return false
}

// Pick chooses a healthy worker serving model that can take a request
// carrying the modalities in need (each once), by the policy. Errors:
// ErrModelNotFound (no worker reached so far serves it; when some workers
// were never reached, ErrNoWorker instead, as the model may be theirs),
// ErrModality (no worker of the model takes need: a modality it lacks, or
// several modalities its protocol cannot carry in one request), ErrNoWorker
// (none of its capable workers is healthy).
func (e *Engine) Pick(model string, need []vision.Modality) (*Worker, error) {
	cands, err := e.candidates(model, need)
	if err != nil {
		return nil, err
	}
	return e.choose(cands), nil
}

// Candidates are the healthy workers of model that can take a request
// carrying the modalities in need: the workers Pick chooses from, for a
// caller that plans for them before picking (their encoder dtypes and
// routes). It fails as Pick does when there is none.
func (e *Engine) Candidates(model string, need []vision.Modality) ([]*Worker, error) {
	return e.candidates(model, need)
}

// candidates are the healthy workers of model that take need.
func (e *Engine) candidates(model string, need []vision.Modality) ([]*Worker, error) {
	var known, capable, unknown int
	var healthy []*Worker
	var takes []string // what the model's workers take, for the refusal
	for _, w := range e.list() {
		w.mu.RLock()
		info, ok, caps := w.info, w.healthy, w.caps
		w.mu.RUnlock()
		if info == nil {
			unknown++
			continue
		}
		if info.Name() != model {
			continue
		}
		known++
		if !caps.Takes(need) {
			if d := describeTakes(w.Runtime(), caps); !slices.Contains(takes, d) {
				takes = append(takes, d)
			}
			continue
		}
		capable++
		if ok {
			healthy = append(healthy, w)
		}
	}
	switch {
	case known == 0 && unknown > 0:
		return nil, fmt.Errorf("engine: model %q: not served by any worker reached so far (%d not reached): %w", model, unknown, ErrNoWorker)
	case known == 0:
		return nil, fmt.Errorf("engine: model %q: %w", model, ErrModelNotFound)
	case capable == 0:
		return nil, fmt.Errorf("engine: model %q: no worker takes %v%s (%s): %w", model, need, mixNote(need), strings.Join(takes, "; "), ErrModality)
	case len(healthy) == 0:
		return nil, fmt.Errorf("engine: model %q: %d workers, none healthy: %w", model, known, ErrNoWorker)
	}
	return healthy, nil
}

// describeTakes says what a worker of that runtime and capabilities takes.
func describeTakes(runtime string, c protocol.Capabilities) string {
	if runtime == "" {
		runtime = "a worker"
	}
	if len(c.Modalities) == 0 {
		return runtime + ": text only"
	}
	s := fmt.Sprintf("%s: %v", runtime, c.Modalities)
	if !c.MixModalities && len(c.Modalities) > 1 {
		s += ", one modality per request"
	}
	return s
}

// mixNote explains a refusal of several modalities.
func mixNote(need []vision.Modality) string {
	if len(need) > 1 {
		return " (in one request)"
	}
	return ""
}

// choose applies the policy to a non-empty candidate list. Round robin
// rotates; least loaded takes the smallest load, ties broken by rotation.
func (e *Engine) choose(c []*Worker) *Worker {
	start := int(e.rr.Add(1)-1) % len(c)
	if e.opts.Policy == PolicyRoundRobin {
		return c[start]
	}
	best, bestLoad := c[start], c[start].load()
	for k := 1; k < len(c); k++ {
		w := c[(start+k)%len(c)]
		if l := w.load(); l < bestLoad {
			best, bestLoad = w, l
		}
	}
	return best
}
