package admission

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/internal/limits"
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
// documentation) through a weighted FIFO (limits.Queue) whose capacity is
// the budget. It is safe for concurrent use.
type Controller struct {
	o Options
	q *limits.Queue
	m *metrics

	// mu guards the holders and their bytes; a holder's change reaches the
	// queue under it, so that held and the queue's weight agree.
	mu      sync.Mutex
	held    int64
	holders []*Holder
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
	q, err := limits.NewQueue(limits.QueueOptions{Capacity: o.Budget, Timeout: o.Timeout, What: "bytes of tensor memory",
		RetryAfter: o.RetryAfter, Reclaim: c.reclaim})
	if err != nil {
		return nil, err
	}
	c.q = q
	if c.m, err = newMetrics(o.Registerer, c); err != nil {
		return nil, err
	}
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
	held := c.held
	qs := c.q.Stats()
	c.mu.Unlock()
	return Stats{Budget: c.o.Budget, Admitted: qs.InUse - held, Held: held, Waiting: qs.Waiting, WaitingBytes: qs.WaitingWeight}
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
	if c.q.TryAcquire(n) {
		c.m.waited(outcomeAdmitted, 0)
		return c.ticket(n), nil
	}
	start := time.Now()
	err := c.q.Acquire(ctx, n)
	waited := time.Since(start)
	switch {
	case err == nil:
		c.m.waited(outcomeAdmitted, waited)
		return c.ticket(n), nil
	case errors.Is(err, limits.ErrQueueTimeout):
		c.m.waited(outcomeTimeout, waited)
		c.m.refused.WithLabelValues(ReasonQueueTimeout).Inc()
		return nil, &Refusal{Kind: ErrQueueTimeout, Reason: ReasonQueueTimeout, Planned: n, Allowed: c.o.Budget,
			Waited: waited, Retry: c.o.RetryAfter}
	}
	c.m.waited(outcomeCancelled, waited)
	return nil, fmt.Errorf("admission: waiting for %d bytes of tensor memory: %w", n, err)
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

func (c *Controller) ticket(n int64) *Ticket {
	c.m.admittedTotal.Add(float64(n))
	return &Ticket{c: c, n: n}
}

// reclaim asks the holders, in the order they were made, for the lack
// bytes the request at the head of the queue lacks (the queue's Reclaim).
func (c *Controller) reclaim(lack int64) {
	c.mu.Lock()
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

// Ticket is an admitted request's hold on its bytes. A nil Ticket is valid
// and holds nothing.
type Ticket struct {
	c    *Controller
	mu   sync.Mutex
	n    int64
	done bool
}

// Bytes is what the ticket holds.
func (t *Ticket) Bytes() int64 {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
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
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done || n < 0 || n == t.n {
		return
	}
	if d := n - t.n; d > 0 {
		t.c.q.Take(d)
		t.c.m.admittedTotal.Add(float64(d))
	} else {
		t.c.q.Release(-d)
	}
	t.n = n
}

// Release gives the bytes back; later calls do nothing.
func (t *Ticket) Release() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	t.done = true
	t.c.q.Release(t.n)
	t.n = 0
}
