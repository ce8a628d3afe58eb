package limits

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func newQueue(t *testing.T, o QueueOptions) *Queue {
	t.Helper()
	q, err := NewQueue(o)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// waitWaiting waits until q has n waiters.
func waitWaiting(t *testing.T, q *Queue, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for q.Stats().Waiting != n {
		if time.Now().After(deadline) {
			t.Fatalf("waiting %d, want %d", q.Stats().Waiting, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestQueueOptions(t *testing.T) {
	for _, o := range []QueueOptions{{}, {Capacity: -1}, {Capacity: 1, Timeout: -1}, {Capacity: 1, MaxWaiting: -1}} {
		if _, err := NewQueue(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// Without a timeout the queue never waits: over capacity is ErrFull at
// once, with the queue's reason and a Retry-After.
func TestQueueNoWait(t *testing.T) {
	q := newQueue(t, QueueOptions{Capacity: 2, Reason: "r", What: "slots"})
	ctx := context.Background()
	for range 2 {
		if err := q.Acquire(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	err := q.Acquire(ctx, 1)
	var ref *Refusal
	if !errors.As(err, &ref) || !errors.Is(err, ErrFull) || ref.Reason != "r" || ref.RetryAfter() != time.Second || time.Since(start) > time.Second {
		t.Fatalf("over capacity: %v (%+v)", err, ref)
	}
	if q.TryAcquire(1) {
		t.Fatal("TryAcquire over capacity")
	}
	q.Release(1)
	if !q.TryAcquire(1) {
		t.Fatal("TryAcquire after Release")
	}
	if s := q.Stats(); s.InUse != 2 || s.Capacity != 2 || s.Waiting != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// Waiters are served in arrival order, and a small request does not
// overtake a large one ahead of it.
func TestQueueFIFO(t *testing.T) {
	q := newQueue(t, QueueOptions{Capacity: 10, Timeout: time.Minute})
	ctx := context.Background()
	if err := q.Acquire(ctx, 10); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		order []int64
		wg    sync.WaitGroup
	)
	weights := []int64{8, 1, 2, 5}
	for i, n := range weights {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := q.Acquire(ctx, n); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, n)
			mu.Unlock()
		}()
		waitWaiting(t, q, i+1)
	}
	if s := q.Stats(); s.WaitingWeight != 16 {
		t.Fatalf("waiting weight %d", s.WaitingWeight)
	}
	// 9 free: the 8 goes, the 1 fits too; the 2 must wait for more.
	waitOrder := func(n int) {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			mu.Lock()
			got := len(order)
			mu.Unlock()
			if got >= n {
				return
			}
		}
	}
	q.Release(9)
	waitWaiting(t, q, 2)
	waitOrder(2)
	mu.Lock()
	// Granted together: their order of appending is the scheduler's.
	if len(order) != 2 || order[0]+order[1] != 9 {
		t.Fatalf("order %v", order)
	}
	mu.Unlock()
	// A newcomer that would fit the 1 free waits behind the others.
	if q.TryAcquire(1) {
		t.Fatal("TryAcquire overtook the queue")
	}
	// One unit at a time: the 2 must go before the 5.
	q.Release(1)
	waitWaiting(t, q, 2)
	q.Release(1)
	waitWaiting(t, q, 1)
	waitOrder(3)
	q.Release(8)
	wg.Wait()
	if order[2] != 2 || order[3] != 5 {
		t.Fatalf("order %v", order)
	}
	if s := q.Stats(); s.InUse != 7 || s.Waiting != 0 || s.WaitingWeight != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// A waiter that times out gets ErrQueueTimeout, leaves the queue and lets
// the ones behind it through when they fit.
func TestQueueTimeout(t *testing.T) {
	q := newQueue(t, QueueOptions{Capacity: 4, Timeout: 100 * time.Millisecond, What: "slots"})
	ctx := context.Background()
	if err := q.Acquire(ctx, 3); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := q.Acquire(ctx, 2)
	var ref *Refusal
	if !errors.As(err, &ref) || !errors.Is(err, ErrQueueTimeout) || ref.Reason != ReasonQueueTimeout || ref.Retry <= 0 {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d < 100*time.Millisecond || d > 5*time.Second {
		t.Fatalf("timed out after %v", d)
	}
	if s := q.Stats(); s.InUse != 3 || s.Waiting != 0 {
		t.Fatalf("stats %+v", s)
	}
	// A large waiter at the head times out; the small one behind it fits.
	q2 := newQueue(t, QueueOptions{Capacity: 4, Timeout: time.Minute})
	q2.Acquire(ctx, 3)
	bigCtx, cancel := context.WithCancel(ctx)
	bigErr := make(chan error)
	go func() { bigErr <- q2.Acquire(bigCtx, 4) }()
	waitWaiting(t, q2, 1)
	small := make(chan error)
	go func() { small <- q2.Acquire(ctx, 1) }()
	waitWaiting(t, q2, 2)
	cancel()
	if err := <-bigErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	if err := <-small; err != nil {
		t.Fatalf("small waiter: %v", err)
	}
	if s := q2.Stats(); s.InUse != 4 {
		t.Fatalf("stats %+v", s)
	}
}

// MaxWaiting bounds the queue; a request over the capacity is refused at
// once.
func TestQueueBounds(t *testing.T) {
	q := newQueue(t, QueueOptions{Capacity: 1, Timeout: time.Minute, MaxWaiting: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q.Acquire(ctx, 1)
	go q.Acquire(ctx, 1)
	waitWaiting(t, q, 1)
	if err := q.Acquire(context.Background(), 1); !errors.Is(err, ErrFull) {
		t.Fatalf("second waiter: %v", err)
	}
	if err := q.Acquire(context.Background(), 2); !errors.Is(err, ErrFull) {
		t.Fatalf("over capacity: %v", err)
	}
}

// Many goroutines acquiring and releasing never exceed the capacity and
// leave it empty.
func TestQueueConcurrent(t *testing.T) {
	q := newQueue(t, QueueOptions{Capacity: 5, Timeout: time.Millisecond})
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		in, top int64
	)
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := int64(i%3 + 1)
			for range 200 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%4)*time.Millisecond)
				if q.Acquire(ctx, n) == nil {
					mu.Lock()
					in += n
					top = max(top, in)
					mu.Unlock()
					mu.Lock()
					in -= n
					mu.Unlock()
					q.Release(n)
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	if s := q.Stats(); s.InUse != 0 || s.Waiting != 0 || s.WaitingWeight != 0 || top > 5 {
		t.Fatalf("stats %+v, peak %d", s, top)
	}
}

// TestQueueTakeAndReclaim: weight taken beside the requests counts; the
// head that lacks room asks for what it lacks, again after a release
// that is not enough, and is admitted once it is given back.
func TestQueueTakeAndReclaim(t *testing.T) {
	var (
		mu    sync.Mutex
		asked []int64
		q     *Queue
	)
	held := int64(6)
	q = newQueue(t, QueueOptions{Capacity: 10, Timeout: time.Minute, Reclaim: func(lack int64) {
		mu.Lock()
		asked = append(asked, lack)
		give := min(lack, held, 2) // two at a time
		held -= give
		mu.Unlock()
		if give > 0 {
			q.Release(give)
		}
	}})
	q.Take(6)
	if q.TryAcquire(5) {
		t.Fatal("TryAcquire passed weight taken beside it")
	}
	done := make(chan error, 1)
	go func() { done <- q.Acquire(context.Background(), 8) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("not admitted after reclaiming")
	}
	mu.Lock()
	defer mu.Unlock()
	if held != 2 || len(asked) != 2 || asked[0] != 4 || asked[1] != 2 {
		t.Errorf("held %d, asked %v: want 4 then 2 asked, 2 left", held, asked)
	}
	if st := q.Stats(); st.InUse != 10 || st.Waiting != 0 {
		t.Errorf("%+v", st)
	}
}
