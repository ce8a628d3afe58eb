package discovery

import (
	"sync"
	"time"
)

// Defaults for BackoffOptions.
const (
	DefaultBackoffBase  = time.Second
	DefaultBackoffMax   = time.Minute
	DefaultBackoffReset = 2 * time.Minute
)

// BackoffOptions configure a Backoff; the zero value of each field means
// its default.
type BackoffOptions struct {
	// Base is the wait after a URL's first failure; each further failure
	// doubles it. Default 1 s.
	Base time.Duration
	// Max caps the wait. Default 1 min.
	Max time.Duration
	// Reset: a URL with no failure for this long starts again from Base.
	// Default 2 min.
	Reset time.Duration
}

// Backoff damps redials per worker URL. The gateway calls Failed when a
// dial or probe of a URL fails and when a worker is removed soon after it
// was added (a flapping pod), and asks Wait before dialling a URL that
// discovery (re)added: zero means dial now. The state outlives the
// worker's removal, which is the point. Backoff is safe for concurrent use.
type Backoff struct {
	base, max, reset time.Duration

	mu   sync.Mutex
	urls map[string]backoffEntry
}

type backoffEntry struct {
	failures int
	last     time.Time // latest failure
	until    time.Time // no dial before this
}

// NewBackoff returns an empty Backoff.
func NewBackoff(o BackoffOptions) *Backoff {
	b := &Backoff{base: o.Base, max: o.Max, reset: o.Reset, urls: map[string]backoffEntry{}}
	if b.base <= 0 {
		b.base = DefaultBackoffBase
	}
	if b.max <= 0 {
		b.max = DefaultBackoffMax
	}
	if b.max < b.base {
		b.max = b.base
	}
	if b.reset <= 0 {
		b.reset = DefaultBackoffReset
	}
	return b
}

// Failed records a failure of url at now and returns how long the URL
// must now wait before its next dial.
func (b *Backoff) Failed(url string, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	for u, e := range b.urls { // forget quiet URLs, so the map stays small
		if now.Sub(e.last) > b.reset {
			delete(b.urls, u)
		}
	}
	e := b.urls[url]
	e.failures++
	d := b.base
	for i := 1; i < e.failures && d < b.max; i++ {
		d *= 2
	}
	d = min(d, b.max)
	e.last, e.until = now, now.Add(d)
	b.urls[url] = e
	return d
}

// Wait returns how long url must still wait at now before a dial; zero
// means dial now.
func (b *Backoff) Wait(url string, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.urls[url]
	if !ok || now.Sub(e.last) > b.reset || !now.Before(e.until) {
		return 0
	}
	return e.until.Sub(now)
}

// Failures returns url's failure count in the current window (for logs).
func (b *Backoff) Failures(url string, now time.Time) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.urls[url]
	if !ok || now.Sub(e.last) > b.reset {
		return 0
	}
	return e.failures
}
