package admission

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// refused is the count of refusals for reason in reg's metrics.
func refused(t *testing.T, reg *prometheus.Registry, reason string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "mmgate_admission_refused_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) == 1 && m.GetLabel()[0].GetValue() == reason {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no refusal count for %s", reason)
	return 0
}

func newController(t *testing.T, o Options) *Controller {
	t.Helper()
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// admitAsync starts Admit in a goroutine and returns its result channel,
// after the request is in the queue.
func admitAsync(t *testing.T, c *Controller, ctx context.Context, n int64) <-chan result {
	t.Helper()
	before := c.Stats().Waiting
	ch := make(chan result, 1)
	go func() {
		tk, err := c.Admit(ctx, n)
		ch <- result{tk, err}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for c.Stats().Waiting == before {
		select {
		case r := <-ch: // admitted at once
			ch <- r
			return ch
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("request never queued")
		}
		time.Sleep(time.Millisecond)
	}
	return ch
}

type result struct {
	t   *Ticket
	err error
}

func pending(ch <-chan result) bool {
	select {
	case r := <-ch:
		panic("unexpected result: " + errString(r.err))
	default:
		return true
	}
}

func errString(err error) string {
	if err == nil {
		return "admitted"
	}
	return err.Error()
}

func receive(t *testing.T, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("no result within 5 s")
		return result{}
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, o := range []Options{{}, {Budget: -1}, {Budget: 1, PerRequest: -1}, {Budget: 1, Timeout: -time.Second}, {Budget: 1, RetryAfter: -1}} {
		if _, err := New(o); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: %v", o, err)
		}
	}
	c := newController(t, Options{Budget: 100})
	if c.PerRequest() != 100 || c.Timeout() != DefaultTimeout || c.Budget() != 100 {
		t.Errorf("defaults: %d %v", c.PerRequest(), c.Timeout())
	}
}

func TestAdmitAndRelease(t *testing.T) {
	c := newController(t, Options{Budget: 10})
	a, err := c.Admit(context.Background(), 6)
	if err != nil || a.Bytes() != 6 || c.Stats().Admitted != 6 {
		t.Fatalf("%v %d %+v", err, a.Bytes(), c.Stats())
	}
	a.Release()
	a.Release() // idempotent
	if s := c.Stats(); s.Admitted != 0 {
		t.Fatalf("after release: %+v", s)
	}
	if _, err := c.Admit(context.Background(), 0); !errors.Is(err, ErrOptions) {
		t.Errorf("0 bytes: %v", err)
	}
	var nilTicket *Ticket
	nilTicket.Release()
	nilTicket.Resize(3)
	if nilTicket.Bytes() != 0 {
		t.Error("nil ticket holds bytes")
	}
}

func TestTooLargeAtOnce(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := newController(t, Options{Budget: 1 << 30, PerRequest: 100, Registerer: reg})
	start := time.Now()
	_, err := c.Admit(context.Background(), 101)
	var r *Refusal
	if !errors.As(err, &r) || !errors.Is(err, ErrTooLarge) || r.Reason != ReasonTooLarge || r.Planned != 101 || r.Allowed != 100 {
		t.Fatalf("%v", err)
	}
	if !strings.Contains(err.Error(), "101 bytes") || !strings.Contains(err.Error(), "100 bytes") {
		t.Errorf("message names neither bytes: %v", err)
	}
	if time.Since(start) > time.Second {
		t.Error("refusal waited")
	}
	// A per-request limit over the budget: the budget decides.
	c2 := newController(t, Options{Budget: 50, PerRequest: 100})
	if _, err := c2.Admit(context.Background(), 60); !errors.As(err, &r) || r.Reason != ReasonOverBudget || r.Allowed != 50 {
		t.Fatalf("over budget: %v", err)
	}
	if got := refused(t, reg, ReasonTooLarge); got != 1 {
		t.Errorf("refused{too_large} = %v", got)
	}
}

// TestFIFO: a request that does not fit waits; a later small one waits
// behind it even though it would fit; releases admit them in order.
func TestFIFO(t *testing.T) {
	c := newController(t, Options{Budget: 10})
	ctx := context.Background()
	a, _ := c.Admit(ctx, 6)
	b := admitAsync(t, c, ctx, 6)
	small := admitAsync(t, c, ctx, 2)
	if s := c.Stats(); s.Waiting != 2 || s.WaitingBytes != 8 || s.Admitted != 6 {
		t.Fatalf("%+v", s)
	}
	pending(b)
	pending(small)
	a.Release()
	rb, rs := receive(t, b), receive(t, small)
	if rb.err != nil || rs.err != nil || c.Stats().Admitted != 8 {
		t.Fatalf("%v %v %+v", rb.err, rs.err, c.Stats())
	}
	rb.t.Release()
	rs.t.Release()
}

func TestQueueTimeout(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := newController(t, Options{Budget: 10, Timeout: 50 * time.Millisecond, RetryAfter: 3 * time.Second, Registerer: reg})
	ctx := context.Background()
	a, _ := c.Admit(ctx, 8)
	start := time.Now()
	_, err := c.Admit(ctx, 5)
	var r *Refusal
	if !errors.As(err, &r) || !errors.Is(err, ErrQueueTimeout) || r.RetryAfter() != 3*time.Second {
		t.Fatalf("%v", err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("refused after %v, before the timeout", d)
	}
	if s := c.Stats(); s.Waiting != 0 || s.WaitingBytes != 0 || s.Admitted != 8 {
		t.Fatalf("after the timeout: %+v", s)
	}
	a.Release()
	if got := refused(t, reg, ReasonQueueTimeout); got != 1 {
		t.Errorf("refused{queue_timeout} = %v", got)
	}
}

// TestLeavingHeadAdmitsNext: when the head of the queue leaves (its
// client went away), the requests behind it that fit are admitted.
func TestLeavingHeadAdmitsNext(t *testing.T) {
	c := newController(t, Options{Budget: 10})
	a, _ := c.Admit(context.Background(), 6)
	ctx, cancel := context.WithCancel(context.Background())
	big := admitAsync(t, c, ctx, 8)
	small := admitAsync(t, c, context.Background(), 3)
	cancel()
	if r := receive(t, big); !errors.Is(r.err, context.Canceled) {
		t.Fatalf("cancelled: %v", r.err)
	}
	if r := receive(t, small); r.err != nil {
		t.Fatalf("small: %v", r.err)
	}
	if s := c.Stats(); s.Admitted != 9 || s.Waiting != 0 {
		t.Fatalf("%+v", s)
	}
	a.Release()
}

func TestResize(t *testing.T) {
	c := newController(t, Options{Budget: 10})
	a, _ := c.Admit(context.Background(), 9)
	w := admitAsync(t, c, context.Background(), 4)
	a.Resize(6)
	r := receive(t, w)
	if r.err != nil || c.Stats().Admitted != 10 {
		t.Fatalf("%v %+v", r.err, c.Stats())
	}
	a.Resize(7) // grows without waiting
	if c.Stats().Admitted != 11 {
		t.Fatalf("%+v", c.Stats())
	}
	a.Release()
	r.t.Release()
	if c.Stats().Admitted != 0 {
		t.Fatalf("%+v", c.Stats())
	}
}

// TestHolders: held bytes count in the budget; TryAdd never overtakes a
// request; a waiting request makes the holders give back what it lacks.
func TestHolders(t *testing.T) {
	c := newController(t, Options{Budget: 10})
	cache, idle := c.Holder("tensor_cache"), c.Holder("shm_reuse")
	var asked []int64
	cache.OnReclaim(func(want int64) int64 {
		asked = append(asked, want)
		give := min(want, cache.Bytes())
		cache.Add(-give)
		return give
	})
	if !cache.TryAdd(3) || !cache.TryAdd(3) || cache.TryAdd(5) {
		t.Fatal("TryAdd")
	}
	idle.Set(2)
	if s := c.Stats(); s.Held != 8 {
		t.Fatalf("%+v", s)
	}
	// 5 bytes: 3 lacking, taken from the cache.
	tk, err := c.Admit(context.Background(), 5)
	if err != nil || cache.Bytes() != 3 || len(asked) != 1 || asked[0] != 3 {
		t.Fatalf("%v cache %d asked %v", err, cache.Bytes(), asked)
	}
	// A request the holders cannot make room for waits; TryAdd does not
	// pass it, Set shrinking lets it in.
	w := admitAsync(t, c, context.Background(), 4)
	if cache.TryAdd(0) {
		t.Error("TryAdd passed a waiting request")
	}
	idle.Set(0)
	pending(w)
	tk.Release()
	if r := receive(t, w); r.err != nil {
		t.Fatal(r.err)
	}
	var nilHolder *Holder
	nilHolder.Set(5)
	nilHolder.Add(5)
	if !nilHolder.TryAdd(5) || nilHolder.Bytes() != 0 {
		t.Error("nil holder")
	}
}

// TestConcurrent admits and releases random sizes from many goroutines:
// the admitted bytes never exceed the budget, and everything ends
// admitted and released.
func TestConcurrent(t *testing.T) {
	const budget = 1000
	c := newController(t, Options{Budget: budget, Timeout: time.Minute})
	h := c.Holder("cache")
	h.OnReclaim(func(want int64) int64 {
		give := min(want, h.Bytes())
		h.Add(-give)
		return give
	})
	var wg sync.WaitGroup
	var mu sync.Mutex
	worst := int64(0)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for range 200 {
				tk, err := c.Admit(context.Background(), 1+rng.Int64N(400))
				if err != nil {
					t.Error(err)
					return
				}
				h.TryAdd(rng.Int64N(50))
				s := c.Stats()
				mu.Lock()
				worst = max(worst, s.Admitted+s.Held)
				mu.Unlock()
				tk.Release()
			}
		}()
	}
	wg.Wait()
	if worst > budget {
		t.Errorf("admitted + held reached %d over a budget of %d", worst, budget)
	}
	if s := c.Stats(); s.Admitted != 0 || s.Waiting != 0 || s.WaitingBytes != 0 {
		t.Errorf("at the end: %+v", s)
	}
}
