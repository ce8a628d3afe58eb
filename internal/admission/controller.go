package admission

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Defaults for Options.
const (
	// DefaultTimeout bounds a request's wait for room when Options.Timeout
	// is 0: long enough for several requests of many large images ahead
	// to be processed on a busy machine (each takes seconds), as an
	// engine's own queue waits; the client's timeout usually ends it
	// first.
	DefaultTimeout = 5 * time.Minute
	// DefaultRetryAfter is the advice given with a queue timeout.
	DefaultRetryAfter = time.Second
)

// Options configure a Controller. Budget is required; the zero value of
// every other field means its default.
type Options struct {
	// Budget is the tensor bytes admitted at once, holders included.
	Budget int64
	// PerRequest refuses a request planning more at once (ErrTooLarge).
	// 0 means Budget.
	PerRequest int64
	// Timeout bounds the wait for room. 0 means DefaultTimeout.
	Timeout time.Duration
	// RetryAfter is the advice given with queue timeouts. 0 means
	// DefaultRetryAfter.
	RetryAfter time.Duration
	// Registerer receives the metrics; nil registers nothing.
	Registerer prometheus.Registerer
}

// Controller admits requests by their planned tensor bytes (see the package
// documentation). It is safe for concurrent use.
type Controller struct {
	o Options
	m *metrics

	mu         sync.Mutex
	admitted   int64 // bytes of live tickets
	held       int64 // bytes of holders
	holders    []*Holder
	head, tail *waiter
	waiting    int   // requests in the queue
	waitBytes  int64 // bytes they ask for
}

// waiter is one request in the queue. ready is closed once it is granted;
// nudge tells it that it became the head of the queue and may ask the
// holders for room.
type waiter struct {
	n          int64
	t          *Ticket
	ready      chan struct{}
	nudge      chan struct{}
	granted    bool
	prev, next *waiter
}

// New checks o and makes a Controller.
func New(o Options) (*Controller, error) {
	if o.Budget <= 0 || o.PerRequest < 0 || o.Timeout < 0 || o.RetryAfter < 0 {
		return nil, fmt.Errorf("%w: budget %d, per-request limit %d, timeout %v, retry after %v: want a positive budget and no negative value",
			ErrOptions, o.Budget, o.PerRequest, o.Timeout, o.RetryAfter)
	}
	if o.PerRequest == 0 {
		o.PerRequest = o.Budget
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.RetryAfter == 0 {
		o.RetryAfter = DefaultRetryAfter
	}
	c := &Controller{o: o}
	m, err := newMetrics(o.Registerer, c)
	if err != nil {
		return nil, err
	}
	c.m = m
	return c, nil
}

// Budget is the controller's budget.
func (c *Controller) Budget() int64 { return c.o.Budget }

// PerRequest is the per-request limit.
func (c *Controller) PerRequest() int64 { return c.o.PerRequest }

// Timeout is the longest wait for room.
func (c *Controller) Timeout() time.Duration { return c.o.Timeout }

// Stats is the controller's state at one moment.
type Stats struct {
	Budget, Admitted, Held int64
	// Waiting requests and the bytes they ask for.
	Waiting      int
	WaitingBytes int64
}

// Stats returns the current state.
func (c *Controller) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Budget: c.o.Budget, Admitted: c.admitted, Held: c.held, Waiting: c.waiting, WaitingBytes: c.waitBytes}
}

// Admit admits a request planning n bytes (n > 0), waiting behind earlier
// requests for at most the timeout. It fails with a *Refusal (ErrTooLarge
// at once, ErrQueueTimeout after the wait) or with ctx's error. The ticket
// holds the bytes until Release.
func (c *Controller) Admit(ctx context.Context, n int64) (*Ticket, error) {
	if n <= 0 {
		return nil, fmt.Errorf("%w: admit %d bytes", ErrOptions, n)
	}
	if err := c.tooLarge(n); err != nil {
		return nil, err
	}
	start := time.Now()
	t := &Ticket{c: c}
	c.mu.Lock()
	if c.head == nil && c.fitsLocked(n) {
		c.grantLocked(t, n)
		c.mu.Unlock()
		c.m.waited(outcomeAdmitted, 0)
		return t, nil
	}
	w := &waiter{n: n, t: t, ready: make(chan struct{}), nudge: make(chan struct{}, 1)}
	c.pushLocked(w)
	c.mu.Unlock()
	return c.wait(ctx, w, start)
}

// tooLarge refuses n over the per-request limit or the budget.
func (c *Controller) tooLarge(n int64) error {
	switch {
	case n > c.o.PerRequest:
		c.m.refused.WithLabelValues(ReasonTooLarge).Inc()
		return &Refusal{Kind: ErrTooLarge, Reason: ReasonTooLarge, Planned: n, Allowed: c.o.PerRequest}
	case n > c.o.Budget:
		c.m.refused.WithLabelValues(ReasonOverBudget).Inc()
		return &Refusal{Kind: ErrTooLarge, Reason: ReasonOverBudget, Planned: n, Allowed: c.o.Budget}
	}
	return nil
}

// wait blocks until w is granted, the timeout passes or ctx ends; as the
// head of the queue it asks the holders for the room it lacks.
func (c *Controller) wait(ctx context.Context, w *waiter, start time.Time) (*Ticket, error) {
	timer := time.NewTimer(c.o.Timeout)
	defer timer.Stop()
	var err error
	for err == nil {
		c.reclaim(w)
		select {
		case <-w.ready:
			c.m.waited(outcomeAdmitted, time.Since(start))
			return w.t, nil
		case <-w.nudge:
			continue
		case <-timer.C:
			c.m.refused.WithLabelValues(ReasonQueueTimeout).Inc()
			err = &Refusal{Kind: ErrQueueTimeout, Reason: ReasonQueueTimeout, Planned: w.n, Allowed: c.o.Budget,
				Waited: time.Since(start), Retry: c.o.RetryAfter}
			c.m.waited(outcomeTimeout, time.Since(start))
		case <-ctx.Done():
			err = fmt.Errorf("admission: waiting for %d bytes of tensor memory: %w", w.n, ctx.Err())
			c.m.waited(outcomeCancelled, time.Since(start))
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if w.granted {
		if ctx.Err() == nil {
			return w.t, nil // granted as the timer fired: use it
		}
		c.releaseLocked(w.t)
		return nil, err
	}
	c.removeLocked(w)
	c.grantWaitersLocked()
	return nil, err
}

// reclaim asks the holders for the room w lacks, when w heads the queue.
func (c *Controller) reclaim(w *waiter) {
	c.mu.Lock()
	if w.granted || c.head != w {
		c.mu.Unlock()
		return
	}
	lack := c.admitted + c.held + w.n - c.o.Budget
	holders := append([]*Holder(nil), c.holders...)
	c.mu.Unlock()
	for _, h := range holders {
		if lack <= 0 {
			return
		}
		if f := h.reclaimer(); f != nil {
			lack -= f(lack)
		}
	}
}

func (c *Controller) fitsLocked(n int64) bool { return c.admitted+c.held+n <= c.o.Budget }

func (c *Controller) grantLocked(t *Ticket, n int64) {
	t.n = n
	c.admitted += n
	c.m.admittedTotal.Add(float64(n))
}

// grantWaitersLocked admits waiters from the head while they fit, and
// nudges a new head that does not.
func (c *Controller) grantWaitersLocked() {
	for w := c.head; w != nil; w = c.head {
		if !c.fitsLocked(w.n) {
			select {
			case w.nudge <- struct{}{}:
			default:
			}
			return
		}
		c.removeLocked(w)
		c.grantLocked(w.t, w.n)
		w.granted = true
		close(w.ready)
	}
}

func (c *Controller) pushLocked(w *waiter) {
	w.prev = c.tail
	if c.tail != nil {
		c.tail.next = w
	} else {
		c.head = w
	}
	c.tail = w
	c.waiting++
	c.waitBytes += w.n
}

func (c *Controller) removeLocked(w *waiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		c.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		c.tail = w.prev
	}
	w.prev, w.next = nil, nil
	c.waiting--
	c.waitBytes -= w.n
}

func (c *Controller) releaseLocked(t *Ticket) {
	if t.done {
		return
	}
	t.done = true
	c.admitted -= t.n
	t.n = 0
	c.grantWaitersLocked()
}

// Ticket is an admitted request's hold on its bytes. A nil Ticket is valid
// and holds nothing.
type Ticket struct {
	c    *Controller
	n    int64 // under c.mu
	done bool  // under c.mu
}

// Bytes is what the ticket holds.
func (t *Ticket) Bytes() int64 {
	if t == nil {
		return 0
	}
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	return t.n
}

// Resize sets the ticket's bytes to n, once the request's worker (and so
// its exact plan) is known. Shrinking gives room to waiters at once;
// growing — the worker set changed between the plan and the pick — takes
// the bytes without waiting.
func (t *Ticket) Resize(n int64) {
	if t == nil {
		return
	}
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.done || n < 0 || n == t.n {
		return
	}
	c.admitted += n - t.n
	if n > t.n {
		c.m.admittedTotal.Add(float64(n - t.n))
	}
	t.n = n
	c.grantWaitersLocked()
}

// Release gives the bytes back; later calls do nothing.
func (t *Ticket) Release() {
	if t == nil {
		return
	}
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.c.releaseLocked(t)
}
