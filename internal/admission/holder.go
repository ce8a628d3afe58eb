package admission

// Holder counts memory a part of the gateway keeps beyond any one request
// (the tensor cache, idle shared-memory segments) in the controller's
// budget. A nil Holder is valid and counts nothing, so that a part built
// without a controller needs no special case.
type Holder struct {
	c    *Controller
	name string
	n    int64 // under c.mu
	// reclaim, when set, gives back up to want bytes if it can and returns
	// how many it gave back (updating the holder through Set or Add
	// itself). Under c.mu.
	reclaim func(want int64) int64
}

// Holder makes a holder named name (the holder label of
// mmgate_admission_held_bytes). Holders are asked for room in the order
// they were made.
func (c *Controller) Holder(name string) *Holder {
	h := &Holder{c: c, name: name}
	c.mu.Lock()
	c.holders = append(c.holders, h)
	c.mu.Unlock()
	c.m.held.WithLabelValues(name).Set(0)
	return h
}

// OnReclaim sets the function the controller calls, without its locks
// held, when a waiting request lacks room: it should free up to want bytes
// (least valuable first), report them through Set or Add, and return how
// many it freed.
func (h *Holder) OnReclaim(f func(want int64) int64) {
	if h == nil {
		return
	}
	h.c.mu.Lock()
	h.reclaim = f
	h.c.mu.Unlock()
}

func (h *Holder) reclaimer() func(int64) int64 {
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	return h.reclaim
}

// Set records that the holder keeps n bytes now (memory it already has:
// counted whether or not it fits).
func (h *Holder) Set(n int64) {
	if h == nil {
		return
	}
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	h.setLocked(max(n, 0))
}

// Add adds d (negative: gives back) to the holder's bytes, as Set does.
func (h *Holder) Add(d int64) {
	if h == nil {
		return
	}
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	h.setLocked(max(h.n+d, 0))
}

// TryAdd adds n bytes when they fit in the budget and no request waits;
// it reports whether it did. Memory a holder may do without (a cache
// entry) is taken this way, so that it never delays a request.
func (h *Holder) TryAdd(n int64) bool {
	if h == nil {
		return true
	}
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	if !h.c.q.TryAcquire(n) {
		return false
	}
	h.account(h.n + n)
	return true
}

// Bytes is what the holder keeps.
func (h *Holder) Bytes() int64 {
	if h == nil {
		return 0
	}
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	return h.n
}

// setLocked moves the holder's weight in the queue to n.
func (h *Holder) setLocked(n int64) {
	switch d := n - h.n; {
	case d > 0:
		h.c.q.Take(d)
	case d < 0:
		h.c.q.Release(-d)
	}
	h.account(n)
}

// account records the holder's bytes as n.
func (h *Holder) account(n int64) {
	h.c.held += n - h.n
	h.n = n
	h.c.m.held.WithLabelValues(h.name).Set(float64(n))
}
