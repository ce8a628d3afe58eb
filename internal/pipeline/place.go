package pipeline

import (
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// This file answers: where does each item's encoder input go once the
// worker is picked? One destination per item (an shm segment in the
// request's batch, or inline bytes), or, for a protocol that joins items
// (protocol.LayoutFlat), one destination for all of them — one segment,
// which a worker that unlinks each file after one read needs, or one
// inline buffer — each item processed straight into its slice of it, in
// prompt order.

// slot is one planned item on its way into its destination.
type slot struct {
	pr *prepared
	n  int // bytes of its encoder input
	// shape is the encoder input's shape as placed and room its bytes:
	// the planned shape and n, or more for an item padded to the batch's
	// largest (padBatch).
	shape []int
	room  int
	// fill processes the item into dst (exactly n bytes).
	fill func(ctx context.Context, s *slot, dst []byte) error
}

// placeEach places every slot in a destination of its own and fills them
// in parallel.
func placeEach(ctx context.Context, j *mediaJob, slots []slot) error {
	g, gctx := errgroup.WithContext(ctx)
	for i := range slots {
		s := &slots[i]
		g.Go(func() error {
			buf, err := j.batch.Place(j.route, s.n, s.pr.modality.String())
			if err != nil {
				return err
			}
			if err := s.fill(gctx, s, buf.Bytes()); err != nil {
				return err
			}
			primary := j.a.Model.Layout(modalityOf(s.pr.modality)).Primary
			if s.pr.input, err = placed(buf, primary, j.dt, s.shape); err != nil {
				return err
			}
			s.pr.path = buf.Path()
			return nil
		})
	}
	return g.Wait()
}

// placeFlat places all slots back to back in one destination (padded as
// the layout stacks them) and fills each its range, in parallel. Each
// item's payload is then its range of that one destination.
func placeFlat(ctx context.Context, j *mediaJob, slots []slot) error {
	layout := j.a.Model.Layout(modalityOf(slots[0].pr.modality))
	if err := padBatch(slots, layout, j.dt); err != nil {
		return err
	}
	total := 0
	for _, s := range slots {
		total += s.room
	}
	buf, err := j.batch.Place(j.route, total, slots[0].pr.modality.String())
	if err != nil {
		return err
	}
	if err := fillSlots(ctx, slots, buf.Bytes()); err != nil {
		return err
	}
	whole, err := buf.Payload(j.dt, []int{total / j.dt.Size()})
	if err != nil {
		return err
	}
	off := 0
	for i := range slots {
		s := &slots[i]
		s.pr.input = protocol.Tensor{Name: layout.Primary, DType: j.dt, Shape: s.shape, Payload: subPayload(whole, off, s.room)}
		s.pr.path = buf.Path()
		off += s.room
	}
	return nil
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

// subPayload is the range [off, off+n) of a sealed destination.
func subPayload(p shm.Payload, off, n int) shm.Payload {
	if p.Shm != nil {
		h := *p.Shm
		h.Offset, h.NBytes = h.Offset+uint64(off), uint64(n)
		return shm.Payload{Shm: &h}
	}
	return shm.Payload{Inline: p.Inline[off : off+n]}
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

// placed is the encoder input filled into buf (sealed when in shared
// memory).
func placed(buf *shm.Buffer, name string, dt tensor.DType, shape []int) (protocol.Tensor, error) {
	p, err := buf.Payload(dt, shape)
	if err != nil {
		return protocol.Tensor{}, err
	}
	return protocol.Tensor{Name: name, DType: dt, Shape: shape, Payload: p}, nil
}

// planSlots are the items' slots for dt without fill functions: what the
// memory plan and placement share.
func planSlots(items []prepared, dt tensor.DType) []slot {
	slots := make([]slot, len(items))
	for i := range items {
		slots[i] = slot{pr: &items[i], n: items[i].bytes(dt), shape: items[i].shape()}
	}
	return slots
}

// samePlan refuses a processed image or video whose plan is not the one
// its headers gave, which the prompt was rendered with.
func samePlan(param string, probed, got vision.Plan) error {
	if probed != got {
		return fmt.Errorf("%s: planned %v from the headers, processed %v: %w", param, probed.Shape(), got.Shape(), imageprep.ErrAllocation)
	}
	return nil
}
