package limits

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
)

// ClientOptions configure per-client limits. The zero value limits
// nothing.
type ClientOptions struct {
	// MaxInFlight bounds one client's requests at once (0: no bound).
	MaxInFlight int
	// Rate is one client's sustained request rate per second, a token
	// bucket refilled continuously (0: no bound).
	Rate float64
	// Burst is the bucket's size: requests a client may send at once
	// after a quiet period (default: Rate rounded up, at least 1).
	Burst int
	// MaxClients bounds the clients tracked at once (default 100,000):
	// idle ones are forgotten, and while that many are active a new
	// client is refused.
	MaxClients int
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// defaultMaxClients is ClientOptions.MaxClients's default.
const defaultMaxClients = 100_000

// sweepEvery is how often idle clients are forgotten (and the least time
// between two sweeps when the table is full).
const sweepEvery = time.Minute

// fullSweepEvery spaces sweeps of a full table.
const fullSweepEvery = time.Second

// Clients applies per-client limits: concurrency and a token-bucket request
// rate per key (an API key or a client address). It is safe for concurrent
// use.
type Clients struct {
	o ClientOptions

	mu        sync.Mutex
	m         map[string]*client
	lastSweep time.Time
}

// client is one key's state.
type client struct {
	inFlight int
	bucket   bucket
}

// NewClients makes the per-client limits; nil when o limits nothing.
func NewClients(o ClientOptions) (*Clients, error) {
	if o.MaxInFlight < 0 || o.Rate < 0 || math.IsNaN(o.Rate) || math.IsInf(o.Rate, 0) || o.Burst < 0 || o.MaxClients < 0 {
		return nil, fmt.Errorf("limits: per-client in-flight %d, rate %v, burst %d, max clients %d: want finite values ≥ 0",
			o.MaxInFlight, o.Rate, o.Burst, o.MaxClients)
	}
	if o.MaxInFlight == 0 && o.Rate == 0 {
		return nil, nil
	}
	if o.Burst == 0 {
		o.Burst = max(1, int(math.Ceil(o.Rate)))
	}
	if o.MaxClients == 0 {
		o.MaxClients = defaultMaxClients
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Clients{o: o, m: map[string]*client{}, lastSweep: o.Now()}, nil
}

// Admit counts a request of the client key, or refuses it with a *Refusal
// (ErrRateLimited) saying when to retry. An admitted request ends with
// Done(key). A nil *Clients admits everything.
func (c *Clients) Admit(key string) error {
	if c == nil {
		return nil
	}
	now := c.o.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	cl := c.m[key]
	if cl == nil {
		if now.Sub(c.lastSweep) >= sweepEvery || len(c.m) >= c.o.MaxClients && now.Sub(c.lastSweep) >= fullSweepEvery {
			c.sweep(now)
		}
		if len(c.m) >= c.o.MaxClients {
			return &Refusal{Kind: ErrRateLimited, Reason: ReasonRate, Retry: fullSweepEvery,
				Msg: fmt.Sprintf("too many clients at once (%d)", c.o.MaxClients)}
		}
		cl = &client{bucket: bucket{tokens: float64(c.o.Burst), at: now}}
		c.m[strings.Clone(key)] = cl
	}
	if c.o.MaxInFlight > 0 && cl.inFlight >= c.o.MaxInFlight {
		return &Refusal{Kind: ErrRateLimited, Reason: ReasonClientInFlight, Retry: time.Second,
			Msg: fmt.Sprintf("too many requests at once from this client (limit %d)", c.o.MaxInFlight)}
	}
	if c.o.Rate > 0 {
		if wait := cl.bucket.take(now, c.o.Rate, float64(c.o.Burst)); wait > 0 {
			return &Refusal{Kind: ErrRateLimited, Reason: ReasonRate, Retry: wait,
				Msg: fmt.Sprintf("request rate over this client's limit of %g per second", c.o.Rate)}
		}
	}
	cl.inFlight++
	return nil
}

// Done ends a request admitted for key.
func (c *Clients) Done(key string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl := c.m[key]; cl != nil && cl.inFlight > 0 {
		cl.inFlight--
	}
}

// Tracked is the number of clients tracked.
func (c *Clients) Tracked() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// sweep forgets the clients with nothing in flight and a full bucket:
// forgetting them changes nothing. Called with mu held.
func (c *Clients) sweep(now time.Time) {
	c.lastSweep = now
	for k, cl := range c.m {
		if cl.inFlight == 0 && (c.o.Rate == 0 || cl.bucket.level(now, c.o.Rate, float64(c.o.Burst)) >= float64(c.o.Burst)) {
			delete(c.m, k)
		}
	}
}

// bucket is a token bucket refilled continuously.
type bucket struct {
	tokens float64
	at     time.Time
}

// level is the bucket's content at now.
func (b *bucket) level(now time.Time, rate, burst float64) float64 {
	dt := now.Sub(b.at).Seconds()
	if dt <= 0 {
		return b.tokens
	}
	return math.Min(burst, b.tokens+dt*rate)
}

// take removes one token at now, or returns how long until one is there.
func (b *bucket) take(now time.Time, rate, burst float64) time.Duration {
	if now.After(b.at) {
		b.tokens, b.at = b.level(now, rate, burst), now
	}
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	return time.Duration(math.Ceil((1 - b.tokens) / rate * float64(time.Second)))
}
