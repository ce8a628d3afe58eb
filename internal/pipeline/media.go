package pipeline

import (
	"context"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/zeebo/blake3"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// prepared is one media item ready for the worker.
type prepared struct {
	modality prompt.Modality
	plan     vision.Plan
	video    *vision.VideoPlan    // videos only
	hash     [32]byte             // prompt.ContentHash of the media bytes
	key      string               // cache key: see mediaJob.identify
	input    protocol.Tensor      // the encoder input
	side     []family.NamedTensor // the family's side tensors of the item
	path     shm.Path
	// raw holds the media bytes for a protocol that wants them
	// (Capabilities.RawMedia) until the request is sent; nil otherwise.
	raw *fetch.Media
}

// item is the planned item as the model's family sees it.
func (pr *prepared) item() family.Item {
	if pr.video != nil {
		return family.VideoItem(pr.video)
	}
	return family.ImageItem(pr.plan)
}

// releaseRaw gives back the media bytes kept for the worker: once its
// request is sent (Engine.Generate returned), or when it failed before.
// The bytes may come from the request body's buffers, which must not
// outlive the request.
func releaseRaw(items []prepared) {
	for i := range items {
		items[i].raw.Release()
		items[i].raw = nil
	}
}

// stageTimes accumulates per-stage wall time over a request's items.
type stageTimes struct {
	mu sync.Mutex
	d  map[string]time.Duration
}

func (s *stageTimes) add(stage string, d time.Duration) {
	s.mu.Lock()
	if s.d == nil {
		s.d = map[string]time.Duration{}
	}
	s.d[stage] += d
	s.mu.Unlock()
}

func (s *stageTimes) snapshot() map[string]time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]time.Duration, len(s.d))
	for k, v := range s.d {
		out[k] = v
	}
	return out
}

// mediaJob is what preparing a request's media needs: the model, where its
// tensors go (dtype, route, the request's segments), its settings, and
// whether the worker wants the media bytes too.
type mediaJob struct {
	a     *Assets
	dt    tensor.DType
	route shm.Route
	batch *shm.Batch
	ov    vision.Overrides
	vov   vision.VideoOverrides
	raw   bool
	times *stageTimes
}

// identify sets pr's content hash and cache key from the media bytes: the
// key is the hex BLAKE3 digest of the bytes, or, when the request changes
// the processing (settings not ""), the digest of that and the settings,
// so that one key always means one encoder input.
func identify(pr *prepared, data []byte, settings string) {
	d := blake3.Sum256(data)
	pr.hash = prompt.ContentHashOf(d)
	pr.key = hex.EncodeToString(d[:])
	if settings != "" {
		k := blake3.Sum256([]byte(pr.key + "|" + settings))
		pr.key = hex.EncodeToString(k[:])
	}
}

// imageSettings names non-default image processing ("" for none).
func imageSettings(ov vision.Overrides) string {
	if ov == (vision.Overrides{}) {
		return ""
	}
	return fmt.Sprintf("min_pixels=%d,max_pixels=%d", ov.MinPixels, ov.MaxPixels)
}

// videoSettings names non-default video processing ("" for none).
func videoSettings(o vision.VideoOverrides) string {
	if o == (vision.VideoOverrides{}) {
		return ""
	}
	return fmt.Sprintf("fps=%g,num_frames=%d,min_pixels=%d,max_pixels=%d,total_pixels=%g", o.FPS, o.NumFrames, o.MinPixels, o.MaxPixels, o.TotalPixels)
}

// checkImage refuses an image item the model cannot take.
func checkImage(a *Assets, item prompt.MediaItem) error {
	if item.Modality != prompt.Image {
		return &prompt.Error{Kind: prompt.ErrUnsupported, Param: item.Param, Msg: item.Modality.String() + " is not supported for this model"}
	}
	if a.Prep == nil {
		return &prompt.Error{Kind: prompt.ErrUnsupported, Param: item.Param, Msg: "this model takes no images"}
	}
	return nil
}

// errNoVideo refuses a video item for a model that takes no videos.
func errNoVideo(item prompt.MediaItem) error {
	return &prompt.Error{Kind: prompt.ErrUnsupported, Param: item.Param, Msg: "video is not supported for this model"}
}

// heavy runs f on the heavy pool when there is one.
func (p *Pipeline) heavy(ctx context.Context, f func()) error {
	if p.opts.Heavy != nil {
		return p.opts.Heavy.Run(ctx, f)
	}
	f()
	return nil
}

func (p *Pipeline) prepareOne(ctx context.Context, j *mediaJob, item prompt.MediaItem) (pr prepared, err error) {
	if err := checkImage(j.a, item); err != nil {
		return prepared{}, err
	}
	// A data: URL is decoded with the heavy work (it is CPU, not waiting);
	// other sources are fetched before taking a heavy slot.
	var m *fetch.Media
	inline := item.Scheme() == "data"
	if !inline {
		if m, err = p.fetch(ctx, item, j.times); err != nil {
			return prepared{}, err
		}
	}
	// The bytes go back to the fetcher once preprocessed (or refused):
	// nothing computed from them keeps a reference, unless the worker
	// wants them.
	defer func() {
		if err != nil || !j.raw {
			m.Release()
		}
	}()
	var buf *shm.Buffer
	work := func() {
		if inline {
			if m, err = p.fetch(ctx, item, j.times); err != nil {
				return
			}
		}
		pr, buf, err = p.preprocess(ctx, j, item, m.Bytes)
	}
	if rerr := p.heavy(ctx, work); rerr != nil {
		return prepared{}, rerr
	}
	if err != nil {
		return prepared{}, err
	}
	if pr.input, err = placed(buf, j.a.Model.Layout(vision.Image).Primary, j.dt, pr.plan.Shape()); err != nil {
		return prepared{}, err
	}
	pr.path = buf.Path()
	pr.side = j.a.Model.SideTensors(pr.item())
	if j.raw {
		pr.raw = m
	}
	return pr, nil
}

// fetch gets an item's bytes and records the stage time.
func (p *Pipeline) fetch(ctx context.Context, item prompt.MediaItem, times *stageTimes) (*fetch.Media, error) {
	t0 := time.Now()
	m, err := p.opts.Fetcher.Fetch(ctx, item.URL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", item.Param, err)
	}
	p.observe(times, "fetch", time.Since(t0))
	return m, nil
}

// observe records a stage time for the request and in the metrics.
func (p *Pipeline) observe(times *stageTimes, stage string, d time.Duration) {
	times.add(stage, d)
	p.m.stage.WithLabelValues(stage).Observe(d.Seconds())
}

// preprocess hashes one item's bytes and fills its destination, from the
// cache or by decoding and processing them.
func (p *Pipeline) preprocess(ctx context.Context, j *mediaJob, item prompt.MediaItem, data []byte) (prepared, *shm.Buffer, error) {
	pr := prepared{modality: item.Modality}
	identify(&pr, data, imageSettings(j.ov))
	key := tensorKey(pr.hash, j.a.ProcessorKey, j.ov, j.dt)

	var buf *shm.Buffer
	if c, ok := p.cache.get(key); ok {
		p.m.cacheHits.Inc()
		b, err := j.batch.Place(j.route, len(c.data), "image")
		if err != nil {
			return prepared{}, nil, err
		}
		cpupool.Copy(b.Bytes(), c.data)
		pr.plan = c.plan
		return pr, b, nil
	}
	p.m.cacheMiss.Inc()
	res, err := j.a.Prep.Image(ctx, imageprep.Request{
		Data: data, Overrides: j.ov, DType: j.dt,
		Alloc: func(n int) ([]byte, error) {
			b, err := j.batch.Place(j.route, n, "image")
			if err != nil {
				return nil, err
			}
			buf = b
			return b.Bytes(), nil
		},
	})
	if err != nil {
		return prepared{}, nil, fmt.Errorf("%s: %w", item.Param, err)
	}
	pr.plan = res.Plan
	p.observeImage(res.Timings, j.times)
	if p.cache.admit(key) {
		p.cache.put(key, cached{plan: res.Plan, data: cpupool.Clone(buf.Bytes())})
	}
	return pr, buf, nil
}

// observeImage records an image's stage times.
func (p *Pipeline) observeImage(t imageprep.Timings, times *stageTimes) {
	p.observe(times, "decode", t.Decode)
	p.observe(times, "resize", t.Resize)
	p.observe(times, "normalize_patchify", t.NormalizePatchify)
}

// placed is the encoder input filled into buf (sealed when in shared
// memory).
func placed(buf *shm.Buffer, name string, dt tensor.DType, shape []int) (protocol.Tensor, error) {
	p, err := buf.Payload(dt, shape)
	if err != nil {
		return protocol.Tensor{}, err
	}
	return protocol.Tensor{Name: name, DType: dt, Shape: shape, Payload: p}, nil
}
