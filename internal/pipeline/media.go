package pipeline

import (
	"context"
	"fmt"
	"sync"
	"time"

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
	video    *vision.VideoPlan // videos only
	hash     [32]byte
	input    protocol.Tensor      // the encoder input
	side     []family.NamedTensor // the family's side tensors of the item
	path     shm.Path
}

// item is the planned item as the model's family sees it.
func (pr *prepared) item() family.Item {
	if pr.video != nil {
		return family.VideoItem(pr.video)
	}
	return family.ImageItem(pr.plan)
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

func (p *Pipeline) prepareOne(ctx context.Context, a *Assets, item prompt.MediaItem, dt tensor.DType, route shm.Route, batch *shm.Batch, ov vision.Overrides, times *stageTimes) (prepared, error) {
	if item.Modality != prompt.Image {
		return prepared{}, &prompt.Error{Kind: prompt.ErrUnsupported, Param: item.Param, Msg: item.Modality.String() + " is not supported for this model"}
	}
	if a.Prep == nil {
		return prepared{}, &prompt.Error{Kind: prompt.ErrUnsupported, Param: item.Param, Msg: "this model takes no images"}
	}
	// A data: URL is decoded with the heavy work (it is CPU, not waiting);
	// other sources are fetched before taking a heavy slot.
	var (
		m   *fetch.Media
		err error
	)
	inline := item.Scheme() == "data"
	if !inline {
		if m, err = p.fetch(ctx, item, times); err != nil {
			return prepared{}, err
		}
	}
	// The bytes go back to the fetcher once preprocessed (or refused):
	// nothing computed from them keeps a reference.
	defer func() { m.Release() }()
	var (
		pr  prepared
		buf *shm.Buffer
	)
	work := func() {
		if inline {
			if m, err = p.fetch(ctx, item, times); err != nil {
				return
			}
		}
		pr, buf, err = p.preprocess(ctx, a, item, m.Bytes, dt, route, batch, ov, times)
	}
	if p.opts.Heavy != nil {
		if rerr := p.opts.Heavy.Run(ctx, work); rerr != nil {
			return prepared{}, rerr
		}
	} else {
		work()
	}
	if err != nil {
		return prepared{}, err
	}
	if pr.input, err = placed(buf, a.Model.Layout(vision.Image).Primary, dt, pr.plan.Shape()); err != nil {
		return prepared{}, err
	}
	pr.path = buf.Path()
	pr.side = a.Model.SideTensors(pr.item())
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
func (p *Pipeline) preprocess(ctx context.Context, a *Assets, item prompt.MediaItem, data []byte, dt tensor.DType, route shm.Route, batch *shm.Batch, ov vision.Overrides, times *stageTimes) (prepared, *shm.Buffer, error) {
	pr := prepared{modality: item.Modality, hash: prompt.ContentHash(data)}
	key := tensorKey(pr.hash, a.ProcessorKey, ov, dt)

	var buf *shm.Buffer
	if c, ok := p.cache.get(key); ok {
		p.m.cacheHits.Inc()
		b, err := batch.Place(route, len(c.data), "image")
		if err != nil {
			return prepared{}, nil, err
		}
		cpupool.Copy(b.Bytes(), c.data)
		pr.plan = c.plan
		return pr, b, nil
	}
	p.m.cacheMiss.Inc()
	res, err := a.Prep.Image(ctx, imageprep.Request{
		Data: data, Overrides: ov, DType: dt,
		Alloc: func(n int) ([]byte, error) {
			b, err := batch.Place(route, n, "image")
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
	p.observe(times, "decode", res.Timings.Decode)
	p.observe(times, "resize", res.Timings.Resize)
	p.observe(times, "normalize_patchify", res.Timings.NormalizePatchify)
	if p.cache.admit(key) {
		p.cache.put(key, cached{plan: res.Plan, data: cpupool.Clone(buf.Bytes())})
	}
	return pr, buf, nil
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
