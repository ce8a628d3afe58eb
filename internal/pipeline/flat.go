package pipeline

import (
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/videoprep"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// slot is one item of a flat request between its plan and its processing.
type slot struct {
	pr    prepared
	media *fetch.Media // the bytes; given back once processed unless kept as raw
	n     int          // bytes of its encoder input
	// shape is the encoder input's shape as placed and room its bytes:
	// the planned shape and n, or more for an item padded to the batch's
	// largest (padBatch).
	shape []int
	room  int
	// fill processes the item into dst (exactly n bytes) and completes its
	// slot's pr.
	fill func(ctx context.Context, s *slot, dst []byte) error
}

// prepareFlat prepares several items for a worker that joins them
// (protocol.LayoutFlat, one modality): every item is fetched and planned
// (an image from its headers or the tensor cache, a video from its probe),
// one destination is placed for all of them — one segment, which a worker
// that unlinks each file after one read needs, or one inline buffer — and
// each item is processed straight into its slice of it, in prompt order.
// Each item's payload is then its range of that one destination.
func (p *Pipeline) prepareFlat(ctx context.Context, j *mediaJob, plan *prompt.Plan) (out []prepared, err error) {
	slots := make([]slot, len(plan.Media))
	defer func() {
		for i := range slots {
			if err != nil || !j.raw {
				slots[i].media.Release()
			}
		}
		if err != nil {
			for _, it := range plan.Media {
				p.m.media.WithLabelValues(it.Modality.String(), "error").Inc()
			}
		}
	}()
	g, gctx := errgroup.WithContext(ctx)
	for i, item := range plan.Media {
		g.Go(func() (err error) {
			if item.Modality == prompt.Video {
				slots[i], err = p.planVideo(gctx, j, item)
			} else {
				slots[i], err = p.planImage(gctx, j, item)
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	layout := j.a.Model.Layout(modalityOf(plan.Media[0]))
	if err := padBatch(slots, layout, j.dt); err != nil {
		return nil, err
	}
	total := 0
	for _, s := range slots {
		total += s.room
	}
	buf, err := j.batch.Place(j.route, total, plan.Media[0].Modality.String())
	if err != nil {
		return nil, err
	}
	if err := fillSlots(ctx, slots, buf.Bytes()); err != nil {
		return nil, err
	}
	whole, err := buf.Payload(j.dt, []int{total / j.dt.Size()})
	if err != nil {
		return nil, err
	}
	out = make([]prepared, len(slots))
	off := 0
	for i := range slots {
		pr := slots[i].pr
		pr.input = protocol.Tensor{Name: layout.Primary, DType: j.dt, Shape: slots[i].shape, Payload: subPayload(whole, off, slots[i].room)}
		pr.path, pr.side = buf.Path(), j.a.Model.SideTensors(pr.item())
		if j.raw {
			pr.raw = slots[i].media
		}
		off += slots[i].room
		out[i] = pr
		p.m.media.WithLabelValues(plan.Media[i].Modality.String(), "ok").Inc()
	}
	return out, nil
}

// fillSlots processes every slot into its consecutive range of dst, in
// parallel, and zeroes the padding after it (a reused segment holds old
// bytes). The ranges keep dst's capacity, so that joined inputs can be
// one slice again (smgwire.Join).
func fillSlots(ctx context.Context, slots []slot, dst []byte) error {
	g, gctx := errgroup.WithContext(ctx)
	off := 0
	for i := range slots {
		part := dst[off : off+slots[i].room]
		off += slots[i].room
		g.Go(func() error {
			clear(part[slots[i].n:])
			return slots[i].fill(gctx, &slots[i], part[:slots[i].n])
		})
	}
	return g.Wait()
}

// padBatch sets each slot's placed shape and room. An encoder input
// batched by item (no sizes tensor) is one tensor of the items' inputs
// stacked, so they must have one shape: items that differ only in dim 1
// (LLaVA-NeXT's [1, tiles, 3, h, w]) are padded to the largest with
// zeros, as Hugging Face's processor pads a batch and SMG sends it to
// vLLM and SGLang (vLLM's model drops the padding by each item's
// image_sizes); inputs that differ otherwise cannot be joined.
func padBatch(slots []slot, l family.Layout, dt tensor.DType) error {
	for i := range slots {
		slots[i].room = slots[i].n
	}
	if l.Sizes != "" || len(slots) < 2 {
		return nil
	}
	padded := slices.Clone(slots[0].shape)
	for _, s := range slots[1:] {
		switch {
		case slices.Equal(s.shape, padded):
		case len(s.shape) < 2 || len(s.shape) != len(padded) || s.shape[0] != padded[0] || !slices.Equal(s.shape[2:], padded[2:]):
			return fmt.Errorf("pipeline: %s inputs of shapes %v and %v cannot be stacked into one tensor for this worker: %w",
				l.Primary, slots[0].shape, s.shape, engine.ErrUnsupportedParam)
		default:
			padded[1] = max(padded[1], s.shape[1])
		}
	}
	room, err := tensor.ByteSize(dt, padded)
	if err != nil {
		return fmt.Errorf("pipeline: %s: %w", l.Primary, err)
	}
	for i := range slots {
		slots[i].shape, slots[i].room = padded, room
	}
	return nil
}

// modalityOf is the vision modality of a planned item.
func modalityOf(it prompt.MediaItem) vision.Modality {
	if it.Modality == prompt.Video {
		return vision.Video
	}
	return vision.Image
}

// subPayload is the range [off, off+n) of a sealed destination.
func subPayload(p shm.Payload, off, n int) shm.Payload {
	if p.Shm != nil {
		h := *p.Shm
		h.Offset, h.NBytes = h.Offset+uint64(off), uint64(n)
		return shm.Payload{Shm: &h}
	}
	return shm.Payload{Inline: p.Inline[off : off+n]}
}

// planImage fetches an image and plans it: from the tensor cache, or from
// its headers (imageprep.Preprocessor.Plan gives the plan decoding will).
func (p *Pipeline) planImage(ctx context.Context, j *mediaJob, item prompt.MediaItem) (s slot, err error) {
	if err := checkImage(j.a, item); err != nil {
		return s, err
	}
	work := func() {
		if s.media, err = p.fetch(ctx, item, j.times); err != nil {
			return
		}
		s.pr = prepared{modality: prompt.Image}
		identify(&s.pr, s.media.Bytes, imageSettings(j.ov))
		key := tensorKey(s.pr.hash, j.a.ProcessorKey, j.ov, j.dt)
		if c, ok := p.cache.get(key); ok {
			p.m.cacheHits.Inc()
			s.pr.plan, s.n, s.shape = c.plan, len(c.data), c.plan.Shape()
			s.fill = func(_ context.Context, _ *slot, dst []byte) error { cpupool.Copy(dst, c.data); return nil }
			return
		}
		if s.pr.plan, err = j.a.Prep.Plan(s.media.Bytes, j.ov); err != nil {
			err = fmt.Errorf("%s: %w", item.Param, err)
			return
		}
		s.n, s.shape = s.pr.plan.Bytes(j.dt), s.pr.plan.Shape()
		s.fill = p.imageFill(j, item, s.media.Bytes, key)
	}
	if item.Scheme() != "data" {
		work() // a network or file fetch waits; only data: URLs decode in the heavy pool
	} else if rerr := p.heavy(ctx, work); rerr != nil {
		return s, rerr
	}
	return s, err
}

// imageFill decodes and processes a planned image into its range.
func (p *Pipeline) imageFill(j *mediaJob, item prompt.MediaItem, data []byte, key string) func(context.Context, *slot, []byte) error {
	return func(ctx context.Context, _ *slot, dst []byte) error {
		p.m.cacheMiss.Inc()
		var err error
		work := func() {
			var res *imageprep.Result
			res, err = j.a.Prep.Image(ctx, imageprep.Request{Data: data, Overrides: j.ov, DType: j.dt, Alloc: exactly(dst)})
			if err != nil {
				err = fmt.Errorf("%s: %w", item.Param, err)
				return
			}
			p.observeImage(res.Timings, j.times)
			if p.cache.admit(key) {
				p.cache.put(key, cached{plan: res.Plan, data: cpupool.Clone(dst)})
			}
		}
		if rerr := p.heavy(ctx, work); rerr != nil {
			return rerr
		}
		return err
	}
}

// exactly allocates dst: the range planned for an item, which its
// processing must fill exactly.
func exactly(dst []byte) imageprep.Allocator {
	return func(n int) ([]byte, error) {
		if n != len(dst) {
			return nil, fmt.Errorf("%d bytes planned, %d needed: %w", len(dst), n, imageprep.ErrAllocation)
		}
		return dst, nil
	}
}

// planVideo fetches a video and plans it from its probe.
func (p *Pipeline) planVideo(ctx context.Context, j *mediaJob, item prompt.MediaItem) (s slot, err error) {
	if j.a.VideoPrep == nil {
		return s, errNoVideo(item)
	}
	if s.media, err = p.fetch(ctx, item, j.times); err != nil {
		return s, err
	}
	_, vp, err := j.a.VideoPrep.Plan(ctx, s.media.Bytes, j.vov)
	if err != nil {
		return s, fmt.Errorf("%s: %w", item.Param, err)
	}
	s.n, s.shape = vp.Bytes(j.dt), vp.Shape()
	data := s.media.Bytes
	s.fill = func(ctx context.Context, s *slot, dst []byte) error {
		// The decode plans again and may first size a buffer from the
		// container's declared frame count; only the final plan must be
		// the one probed.
		res, err := j.a.VideoPrep.Video(ctx, videoprep.Request{Data: data, Overrides: j.vov, DType: j.dt,
			Alloc: func(n int) ([]byte, error) {
				if n == len(dst) {
					return dst, nil
				}
				return make([]byte, n), nil
			}})
		if err != nil {
			return fmt.Errorf("%s: %w", item.Param, err)
		}
		if len(res.Data) != len(dst) || len(dst) > 0 && &res.Data[0] != &dst[0] {
			return fmt.Errorf("%s: probed plan %v, processed %v: %w", item.Param, vp.Shape(), res.Plan.Shape(), imageprep.ErrAllocation)
		}
		p.observeVideo(res.Timings, j.times)
		s.pr = videoPrepared(j, res.Plan, data)
		return nil
	}
	return s, nil
}
