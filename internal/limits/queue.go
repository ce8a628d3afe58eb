package limits

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// QueueOptions configure a Queue.
type QueueOptions struct {
	// Capacity is the weight admitted at once: request slots, bytes.
	// Required.
	Capacity int64
	// Timeout bounds the wait for room. 0: no wait, a request without
	// room is refused at once with ErrFull.
	Timeout time.Duration
	// MaxWaiting bounds the number of waiters (0: only Timeout bounds the
	// queue); over it, ErrFull at once.
	MaxWaiting int
	// Reason and What name the queue in refusals: the metric reason of a
	// full queue and what its capacity counts ("processing slots").
	// Timeouts have the reason ReasonQueueTimeout.
	Reason, What string
	// RetryAfter is the advice given with refusals (default 1 s).
	RetryAfter time.Duration
	// Reclaim, when set, is called by the request at the head of the
	// queue while it lacks room, with the weight it lacks (without the
	// queue's lock held), so that whatever holds weight beside the
	// queue's requests (Take) can give some back (Release). It is called
	// when the request starts waiting at the head, becomes the head, or
	// still lacks room after weight was given back.
	Reclaim func(lack int64)
}

// QueueStats is a Queue's state at one moment.
type QueueStats struct {
	Capacity, InUse int64
	// Waiting requests and the weight they ask for.
	Waiting       int
	WaitingWeight int64
}

// Queue admits weighted requests in arrival order while their weights fit
// in its capacity; a request that does not fit waits behind the earlier
// ones (a small request never overtakes a large one that arrived first),
// up to the timeout. It is safe for concurrent use.
type Queue struct {
	o QueueOptions

	mu         sync.Mutex
	used       int64
	head, tail *waiter
	waiting    int
	waitWeight int64
}

// waiter is one request in the queue; ready is closed once it is granted;
// nudge tells the head that lacks room to call Reclaim again.
type waiter struct {
	n          int64
	ready      chan struct{}
	nudge      chan struct{}
	granted    bool
	prev, next *waiter
}

// NewQueue makes a queue.
func NewQueue(o QueueOptions) (*Queue, error) {
	if o.Capacity <= 0 || o.Timeout < 0 || o.MaxWaiting < 0 {
		return nil, fmt.Errorf("limits: queue capacity %d, timeout %v, max waiting %d: want a positive capacity and no negative bound",
			o.Capacity, o.Timeout, o.MaxWaiting)
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = time.Second
	}
	if o.What == "" {
		o.What = "capacity"
	}
	if o.Reason == "" {
		o.Reason = ReasonInFlight
	}
	return &Queue{o: o}, nil
}

// TryAcquire takes n at once if it fits and nobody waits; it never waits.
func (q *Queue) TryAcquire(n int64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == nil && q.used+n <= q.o.Capacity {
		q.used += n
		return true
	}
	return false
}

// Acquire takes n, waiting behind earlier requests for at most the queue's
// timeout. It fails with a *Refusal (ErrFull: no wait allowed, queue full,
// or n over the capacity; ErrQueueTimeout) or with ctx's error. On success
// the caller gives n back with Release.
func (q *Queue) Acquire(ctx context.Context, n int64) error {
	q.mu.Lock()
	if q.head == nil && q.used+n <= q.o.Capacity {
		q.used += n
		q.mu.Unlock()
		return nil
	}
	if n > q.o.Capacity || q.o.Timeout == 0 || q.o.MaxWaiting > 0 && q.waiting >= q.o.MaxWaiting {
		q.mu.Unlock()
		return q.full(n)
	}
	w := &waiter{n: n, ready: make(chan struct{}), nudge: make(chan struct{}, 1)}
	q.push(w)
	q.mu.Unlock()

	t := time.NewTimer(q.o.Timeout)
	defer t.Stop()
	var err error
	for err == nil {
		q.reclaim(w)
		select {
		case <-w.ready:
			return nil
		case <-w.nudge:
		case <-t.C:
			err = &Refusal{Kind: ErrQueueTimeout, Reason: ReasonQueueTimeout, Retry: q.o.RetryAfter,
				Msg: fmt.Sprintf("the gateway is at its limit of %d %s and none came free within %v", q.o.Capacity, q.o.What, q.o.Timeout)}
		case <-ctx.Done():
			err = fmt.Errorf("limits: waiting for %s: %w", q.o.What, ctx.Err())
		}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if w.granted {
		if ctx.Err() == nil {
			return nil // granted as the timer fired: use it
		}
		q.used -= n
	} else {
		q.remove(w)
	}
	q.grant()
	return err
}

// full is the refusal when n cannot be had without waiting.
func (q *Queue) full(n int64) *Refusal {
	msg := fmt.Sprintf("the gateway is at its limit of %d %s", q.o.Capacity, q.o.What)
	if n > q.o.Capacity {
		msg = fmt.Sprintf("%d %s asked for, over the limit of %d", n, q.o.What, q.o.Capacity)
	}
	return &Refusal{Kind: ErrFull, Reason: q.o.Reason, Msg: msg, Retry: q.o.RetryAfter}
}

// reclaim calls Reclaim with what w lacks, when w heads the queue.
func (q *Queue) reclaim(w *waiter) {
	if q.o.Reclaim == nil {
		return
	}
	q.mu.Lock()
	lack := q.used + w.n - q.o.Capacity
	head := q.head == w && !w.granted
	q.mu.Unlock()
	if head && lack > 0 {
		q.o.Reclaim(lack)
	}
}

// Take takes n at once, whether or not it fits and whoever waits: weight
// already in use that must count (memory a cache holds). The caller gives
// it back with Release.
func (q *Queue) Take(n int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.used += n
}

// Release gives back n taken by TryAcquire, Acquire or Take.
func (q *Queue) Release(n int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.used -= n
	if q.used < 0 {
		panic("limits: Queue.Release of more than was acquired")
	}
	q.grant()
}

// Stats returns the queue's state.
func (q *Queue) Stats() QueueStats {
	q.mu.Lock()
	defer q.mu.Unlock()
	return QueueStats{Capacity: q.o.Capacity, InUse: q.used, Waiting: q.waiting, WaitingWeight: q.waitWeight}
}

// grant admits waiters from the head while they fit, and nudges a head
// that does not (see Reclaim). Called with mu held.
func (q *Queue) grant() {
	for w := q.head; w != nil && q.used+w.n <= q.o.Capacity; w = q.head {
		q.used += w.n
		w.granted = true
		q.remove(w)
		close(w.ready)
	}
	if w := q.head; w != nil && q.o.Reclaim != nil {
		select {
		case w.nudge <- struct{}{}:
		default:
		}
	}
}

func (q *Queue) push(w *waiter) {
	w.prev = q.tail
	if q.tail != nil {
		q.tail.next = w
	} else {
		q.head = w
	}
	q.tail = w
	q.waiting++
	q.waitWeight += w.n
}

func (q *Queue) remove(w *waiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		q.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		q.tail = w.prev
	}
	w.prev, w.next = nil, nil
	q.waiting--
	q.waitWeight -= w.n
}
