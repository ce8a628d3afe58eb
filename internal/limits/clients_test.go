package limits

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *fakeClock               { return &fakeClock{t: time.Unix(1000, 0)} }
func refusal(t *testing.T, err error) *Refusal {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) || !errors.Is(err, ErrRateLimited) {
		t.Fatalf("got %v, want a rate refusal", err)
	}
	return r
}

func TestClientsOff(t *testing.T) {
	c, err := NewClients(ClientOptions{})
	if err != nil || c != nil {
		t.Fatalf("zero options: %v %v", c, err)
	}
	// A nil *Clients admits everything.
	for range 1000 {
		if err := c.Admit("a"); err != nil {
			t.Fatal(err)
		}
	}
	c.Done("a")
	for _, o := range []ClientOptions{{MaxInFlight: -1}, {Rate: -1}, {Rate: 1, Burst: -1}} {
		if _, err := NewClients(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// Concurrency is per key: one client at its bound does not hold back
// another.
func TestClientsInFlight(t *testing.T) {
	clk := newClock()
	c, _ := NewClients(ClientOptions{MaxInFlight: 2, Now: clk.now})
	for range 2 {
		if err := c.Admit("a"); err != nil {
			t.Fatal(err)
		}
	}
	r := refusal(t, c.Admit("a"))
	if r.Reason != ReasonClientInFlight || r.RetryAfter() <= 0 {
		t.Fatalf("%+v", r)
	}
	if err := c.Admit("b"); err != nil {
		t.Fatalf("other client: %v", err)
	}
	c.Done("a")
	if err := c.Admit("a"); err != nil {
		t.Fatalf("after Done: %v", err)
	}
}

// The token bucket: Burst at once, then Rate per second, and the
// Retry-After is the time until the next token.
func TestClientsRate(t *testing.T) {
	clk := newClock()
	c, _ := NewClients(ClientOptions{Rate: 2, Burst: 3, Now: clk.now})
	admit := func() error {
		err := c.Admit("k")
		if err == nil {
			c.Done("k")
		}
		return err
	}
	for i := range 3 {
		if err := admit(); err != nil {
			t.Fatalf("burst %d: %v", i, err)
		}
	}
	r := refusal(t, admit())
	if r.Reason != ReasonRate || r.Retry != 500*time.Millisecond {
		t.Fatalf("%+v", r)
	}
	clk.add(200 * time.Millisecond)
	if r := refusal(t, admit()); r.Retry != 300*time.Millisecond {
		t.Fatalf("retry %v", r.Retry)
	}
	clk.add(300 * time.Millisecond)
	if err := admit(); err != nil {
		t.Fatalf("after refill: %v", err)
	}
	// Over 10 s at the rate: 20 more, never more than Burst saved up.
	clk.add(time.Hour)
	n := 0
	for range 100 {
		if admit() == nil {
			n++
		}
		clk.add(100 * time.Millisecond)
	}
	if n != 3+20-1 && n != 3+20 {
		t.Fatalf("%d admitted in 10 s at 2/s with a burst of 3", n)
	}
	// A fractional rate's default burst is 1.
	c2, _ := NewClients(ClientOptions{Rate: 0.5, Now: clk.now})
	if c2.Admit("x") != nil || c2.Admit("x") == nil {
		t.Fatal("rate 0.5: want one request, then a refusal")
	}
}

// Idle clients are forgotten; a table full of active ones refuses new
// clients rather than grow.
func TestClientsTable(t *testing.T) {
	clk := newClock()
	c, _ := NewClients(ClientOptions{MaxInFlight: 1, Rate: 10, MaxClients: 3, Now: clk.now})
	for i := range 3 {
		if err := c.Admit(fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	clk.add(2 * time.Second)
	if r := refusal(t, c.Admit("new")); r.Reason != ReasonRate {
		t.Fatalf("%+v", r)
	}
	c.Done("0")
	clk.add(2 * time.Second)
	if err := c.Admit("new"); err != nil {
		t.Fatalf("after one went idle: %v", err)
	}
	if c.Tracked() != 3 {
		t.Fatalf("tracked %d", c.Tracked())
	}
	// The periodic sweep forgets idle clients.
	c.Done("1")
	c.Done("2")
	c.Done("new")
	clk.add(2 * time.Minute)
	c.Admit("late")
	if c.Tracked() != 1 {
		t.Fatalf("tracked %d after the sweep", c.Tracked())
	}
}
