package shm

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mmgate/mmgate/tensor"
)

// Batch holds the segments of one request (its lease). Exactly one of Commit
// (the worker took the request: forget the segments without unlinking them)
// or Release (unlink them all) takes effect; later calls do nothing, so
// `defer b.Release()` after NewBatch and `b.Commit()` on success is the usual
// pattern. A Batch is safe for concurrent use.
//
// When the context given to NewBatch ends first, the batch is abandoned: its
// files are unlinked and their pages freed at once, even while producers are
// still writing — the memory behind Bytes is swapped for anonymous memory in
// place, so writing into it never faults — and Release or Commit later
// unmaps that stand-in. Every batch must end with one of those two calls,
// after its producers have stopped writing.
type Batch struct {
	pool *Pool
	id   string
	stop func() bool // stops the release-on-cancel hook

	mu        sync.Mutex
	done      bool // committed or released: no more segments, mappings gone
	abandoned bool // the context ended first: files unlinked, mappings kept
	segs      []*Segment
	placed    []placement
}

type placement struct {
	path  Path
	start time.Time
}

// RequestID is the id given to NewBatch.
func (b *Batch) RequestID() string { return b.id }

// Alloc creates a segment of nbytes for this request. Errors: ErrNoSpace,
// ErrOverBudget, ErrUnavailable (or another create error, wrapped). Several
// goroutines may allocate for one batch at once; the segments are created in
// parallel.
func (b *Batch) Alloc(nbytes int) (*Segment, error) {
	return b.alloc(nbytes, false)
}

// alloc is Alloc; with reuse the segment comes from (and goes back to) the
// pool's free list (see reuse.go), and may be larger than nbytes.
func (b *Batch) alloc(nbytes int, reuse bool) (*Segment, error) {
	if b.finished() {
		return nil, fmt.Errorf("shm: alloc for request %q: batch already finished: %w", b.id, ErrUnavailable)
	}
	var s *Segment
	var err error
	if reuse {
		s, err = b.pool.allocReuse(nbytes)
	} else {
		s, err = b.pool.alloc(nbytes)
	}
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	if b.done || b.abandoned {
		// Finished while the segment was being made; nobody has seen it.
		b.mu.Unlock()
		if s.reusable {
			b.pool.recycle([]*Segment{s})
		} else {
			s.unmap()
			b.pool.drop([]*Segment{s})
		}
		return nil, fmt.Errorf("shm: alloc for request %q: batch already finished: %w", b.id, ErrUnavailable)
	}
	b.segs = append(b.segs, s)
	b.mu.Unlock()
	return s, nil
}

// finished reports whether no more segments may be added.
func (b *Batch) finished() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.done || b.abandoned
}

// Segments returns the segments allocated so far.
func (b *Batch) Segments() []*Segment {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]*Segment(nil), b.segs...)
}

// Commit records that the worker has taken the request: the segments are
// sealed, unmapped and handed over (the worker unlinks them after reading;
// the janitor removes them after their deadline otherwise). Their bytes stay
// counted against the budget until they are gone. Segments placed with
// Route.Reuse instead go back to the pool's free list, still mapped (the
// worker has read them and keeps the file). On an abandoned batch Commit
// only unmaps, as Release does.
func (b *Batch) Commit() {
	segs, placed, ok := b.finish()
	if !ok {
		return
	}
	plain, reused := splitReusable(segs)
	for _, s := range plain {
		_ = s.Seal()
		s.unmap()
	}
	b.pool.handOff(plain)
	for _, s := range reused {
		_ = s.Seal()
	}
	b.pool.recycle(reused)
	now := b.pool.opts.Now()
	for _, p := range placed {
		b.pool.m.seconds.WithLabelValues(p.path.String()).Observe(now.Sub(p.start).Seconds())
	}
}

// Release unlinks every segment of the request and unmaps them: call it on
// any failure before the worker has taken the request (including an error
// status from the worker), once the request's producers have stopped.
// Segments placed with Route.Reuse are removed too, never reused.
func (b *Batch) Release() {
	segs, _, ok := b.finish()
	if !ok {
		return
	}
	// A released request's segments are never reused: the worker may not
	// have answered because it is still reading them, and refilling them
	// could hand it another request's bytes.
	for _, s := range segs {
		s.unmap()
	}
	b.pool.drop(segs)
}

// finish marks the batch done (once) and stops its context watch. It
// returns the segments and placements to dispose of, and ok false when the
// batch was already done or was abandoned (its files are already unlinked:
// the mappings are released here).
func (b *Batch) finish() (segs []*Segment, placed []placement, ok bool) {
	b.mu.Lock()
	if b.done {
		b.mu.Unlock()
		return nil, nil, false
	}
	b.done = true
	segs, placed, abandoned := b.segs, b.placed, b.abandoned
	b.mu.Unlock()
	if b.stop != nil {
		b.stop()
	}
	if abandoned {
		for _, s := range segs {
			s.unmap()
		}
		return nil, nil, false
	}
	return segs, placed, true
}

// splitReusable separates segments placed for reuse from the others.
func splitReusable(segs []*Segment) (plain, reused []*Segment) {
	for _, s := range segs {
		if s.reusable {
			reused = append(reused, s)
		} else {
			plain = append(plain, s)
		}
	}
	return plain, reused
}

// abandon runs when the request's context ends before Commit or Release:
// the files are unlinked, the mappings left to Release or Commit.
func (b *Batch) abandon() {
	b.mu.Lock()
	if b.done || b.abandoned {
		b.mu.Unlock()
		return
	}
	b.abandoned = true
	segs := b.segs
	b.mu.Unlock()
	for _, s := range segs {
		s.detach()
	}
	b.pool.drop(segs)
}

// Route is what Place needs to know about the worker a request goes to.
type Route struct {
	Mode           Mode
	NamespaceMatch bool // the worker's shm_namespace_id equals Pool.NamespaceID()
	Limits         Limits
	Runtime        string // metrics label: the worker's runtime
	// Reuse: the worker keeps segments after reading them (it advertises
	// scheduler_info["shm_keep_after_read"] = true and shares the
	// namespace), so segments come from and go back to the pool's free
	// list (see reuse.go). Ignored for inline tensors and when the pool's
	// reuse is off.
	Reuse bool
}

// Buffer is the destination of one tensor: a mapped segment (PathShm) or a
// fresh Go slice (PathInline). Fill Bytes, then call Payload.
type Buffer struct {
	path Path
	data []byte
	seg  *Segment
}

// Path is where the tensor travels.
func (x *Buffer) Path() Path { return x.path }

// Bytes is the memory to fill with the tensor's little-endian C-order bytes.
func (x *Buffer) Bytes() []byte { return x.data }

// Segment is the shared-memory segment, or nil for an inline buffer.
func (x *Buffer) Segment() *Segment { return x.seg }

// Payload describes the tensor once Bytes is filled; for a segment it seals
// it first (Bytes must not be used afterwards). shape and dtype must
// describe exactly len(Bytes()) bytes.
func (x *Buffer) Payload(dt tensor.DType, shape []int) (Payload, error) {
	n, err := tensor.ByteSize(dt, shape)
	if err != nil {
		return Payload{}, fmt.Errorf("shm: payload: %w", err)
	}
	if n != len(x.data) {
		return Payload{}, fmt.Errorf("shm: payload: %s%v is %d bytes, buffer has %d: %w", dt, shape, n, len(x.data), tensor.ErrShape)
	}
	if x.seg == nil {
		return Payload{Inline: x.data}, nil
	}
	if err := x.seg.Seal(); err != nil {
		return Payload{}, err
	}
	h := x.seg.Handle()
	h.NBytes = uint64(len(x.data)) // a reused segment may be longer
	return Payload{Shm: &h}, nil
}

// Place chooses the path of a tensor of nbytes for route (see Decide) and
// returns its destination, counting it in the metrics under modality. A
// tensor meant for shared memory that cannot get a segment (full tmpfs,
// budget, unusable directory) falls back to inline when it fits, counted in
// mmgate_mm_shm_fallbacks_total; otherwise the error wraps ErrTooLarge. On a
// batch already committed or released it fails with ErrUnavailable.
func (b *Batch) Place(r Route, nbytes int, modality string) (*Buffer, error) {
	if b.finished() {
		return nil, fmt.Errorf("shm: place for request %q: batch already finished: %w", b.id, ErrUnavailable)
	}
	m := b.pool.m
	start := b.pool.opts.Now()
	path := Decide(r.Mode, r.NamespaceMatch, nbytes, r.Limits)
	var x *Buffer
	switch path {
	case PathTooLarge:
		m.fallbacks.WithLabelValues(r.Runtime, "too_large").Inc()
		return nil, fmt.Errorf("shm: %d-byte tensor exceeds the %d-byte inline limit and shared memory is not used for this worker: %w",
			nbytes, r.Limits.maxInline(), ErrTooLarge)
	case PathShm:
		seg, err := b.alloc(nbytes, r.Reuse && b.pool.reuseCap > 0)
		if err == nil {
			x = &Buffer{path: PathShm, data: seg.Bytes()[:nbytes], seg: seg}
			break
		}
		m.fallbacks.WithLabelValues(r.Runtime, fallbackReason(err)).Inc()
		if nbytes > r.Limits.maxInline() {
			return nil, fmt.Errorf("shm: %d-byte tensor exceeds the %d-byte inline limit and %w: %w",
				nbytes, r.Limits.maxInline(), err, ErrTooLarge)
		}
		b.pool.opts.Logger.Debug("shared memory: tensor sent inline", "request_id", b.id, "bytes", nbytes, "err", err)
		path = PathInline
	}
	if x == nil {
		x = &Buffer{path: PathInline, data: make([]byte, nbytes)}
	}
	m.tensors.WithLabelValues(r.Runtime, modality, path.String()).Inc()
	m.bytes.WithLabelValues(r.Runtime, modality, path.String()).Add(float64(nbytes))
	b.mu.Lock()
	b.placed = append(b.placed, placement{path: path, start: start})
	b.mu.Unlock()
	return x, nil
}

func fallbackReason(err error) string {
	switch {
	case errors.Is(err, ErrNoSpace):
		return "no_space"
	case errors.Is(err, ErrOverBudget):
		return "over_budget"
	case errors.Is(err, ErrUnavailable):
		return "unavailable"
	}
	return "error"
}
