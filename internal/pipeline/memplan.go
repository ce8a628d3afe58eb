package pipeline

import (
	"cmp"
	"slices"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

// This file answers: how much memory will a request's media take, known
// before any pixel is decoded? From each item's plan (the model family's
// processor, fed the headers) and the worker's wire dtype, layout and
// route: the encoder inputs as they will be placed, the side tensors, the
// extra copies an inline input has while it is sent, and the scratch its
// decoding and resizing need. The admission controller holds a request to
// this figure from admission until the worker has its tensors.

// memPlan is a request's planned memory on one worker, in bytes.
type memPlan struct {
	// Tensors are the encoder inputs as placed: one destination per item,
	// or one for all for a protocol that joins them, stacked inputs
	// padded to the largest item.
	Tensors int64
	// Side are the side tensors (grids, sizes), carried inline.
	Side int64
	// Copies are the further copies of inline tensors while they are sent:
	// gRPC's encoded message, and a worker in this process decoding it.
	Copies int64
	// Scratch is the decoding and resizing memory of the items processed
	// at once (Options.CPU of them, the largest counted).
	Scratch int64
}

func (m memPlan) total() int64 { return m.Tensors + m.Side + m.Copies + m.Scratch }

// memTarget is what the plan needs to know of a worker.
type memTarget struct {
	dt   tensor.DType
	flat bool // several items go in one destination (LayoutFlat)
	// route decides each destination's path; shm false means every
	// tensor goes inline (no pool, or an unusable directory).
	route shm.Route
	shm   bool
	// inlineCopies is how many copies of an inline tensor exist while it
	// is sent (at least 1); parallel how many items are processed at once.
	inlineCopies int
	parallel     int
}

// memoryFor is the plan of items for worker w.
func (p *Pipeline) memoryFor(a *Assets, items []prepared, w *engine.Worker) memPlan {
	t := memTarget{dt: w.EncoderDType(), flat: w.Capabilities().Layout == protocol.LayoutFlat, route: w.Route(),
		shm: p.opts.Pool != nil && p.opts.Pool.Usable(), inlineCopies: p.opts.InlineCopies, parallel: p.opts.CPU}
	return planMemory(a, items, t)
}

// planMemory is the plan of items for t.
func planMemory(a *Assets, items []prepared, t memTarget) memPlan {
	var m memPlan
	if len(items) == 0 {
		return m
	}
	copies := int64(max(t.inlineCopies, 1) - 1)
	inline := func(n int64) bool {
		return !t.shm || shm.Decide(t.route.Mode, t.route.NamespaceMatch, int(n), t.route.Limits) != shm.PathShm
	}
	slots := planSlots(items, t.dt)
	var dests []int64
	if t.flat && len(items) > 1 {
		// A layout the items cannot be stacked in fails when placed; its
		// plan is the items unpadded.
		_ = padBatch(slots, a.Model.Layout(modalityOf(items[0].modality)), t.dt)
		var total int64
		for _, s := range slots {
			total += int64(max(s.room, s.n))
		}
		dests = append(dests, total)
	} else {
		for _, s := range slots {
			dests = append(dests, int64(s.n))
		}
	}
	for _, d := range dests {
		m.Tensors += d
		if inline(d) {
			m.Copies += copies * d
		}
	}
	for i := range items {
		for _, st := range items[i].side {
			m.Side += int64(len(st.Data)) * (1 + copies)
		}
	}
	m.Scratch = scratch(items, max(t.parallel, 1))
	return m
}

// scratch is the decoding and resizing memory of the parallel largest
// items: for an image its decoded RGB pixels, its resized RGB pixels and,
// for families that cut views (crops, tiles), one byte per element of
// them; for a video, the raw and resized frames in flight (parallel + 1
// of each).
func scratch(items []prepared, parallel int) int64 {
	each := make([]int64, len(items))
	for i := range items {
		pl := items[i].plan
		src, dst := int64(3*pl.SourceWidth*pl.SourceHeight), int64(3*pl.Width*pl.Height)
		if items[i].video != nil {
			each[i] = int64(parallel+1) * (src + dst)
			continue
		}
		each[i] = src + dst
		if pl.NDims != 0 {
			each[i] += int64(pl.Elements())
		}
	}
	// The largest first: a request processes at most parallel at once.
	slices.SortFunc(each, func(a, b int64) int { return cmp.Compare(b, a) })
	var sum int64
	for _, n := range each[:min(parallel, len(each))] {
		sum += n
	}
	return sum
}
