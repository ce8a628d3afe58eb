package limits

import (
	"errors"
	"time"
)

// The kinds of refusal. A *Refusal wraps one of them.
var (
	// ErrFull: no room in a budget that is not waited for (or whose
	// queue is full).
	ErrFull = errors.New("over capacity")
	// ErrQueueTimeout: room did not come within the queue's timeout.
	ErrQueueTimeout = errors.New("no room within the queue timeout")
	// ErrRateLimited: one client over its own concurrency or rate.
	ErrRateLimited = errors.New("client over its limit")
	// ErrBodyTimeout: a request body stopped arriving, or arrived too
	// slowly.
	ErrBodyTimeout = errors.New("request body too slow")
)

// The metric reasons of refusals and cuts (the reason label of
// mmgate_http_refused_total).
const (
	ReasonInFlight       = "in_flight"        // processing slots full, no queue or queue full
	ReasonQueueTimeout   = "queue_timeout"    // waited for a processing slot in vain
	ReasonUploads        = "uploads"          // too many bodies, or too many bytes, being received
	ReasonBodyTimeout    = "body_timeout"     // a body without a byte for the idle timeout, or below the minimum rate
	ReasonClientStall    = "client_stall"     // a response the client stopped reading
	ReasonRate           = "rate"             // one client over its request rate
	ReasonClientInFlight = "client_in_flight" // one client over its concurrency
)

// Refusal is a request refused or cut by a limit.
type Refusal struct {
	// Kind is one of the package's sentinels.
	Kind error
	// Reason is the metric reason (Reason… constants).
	Reason string
	// Msg says what was exceeded, for the client.
	Msg string
	// Retry is when trying again may succeed (0: no advice).
	Retry time.Duration
}

func (r *Refusal) Error() string { return r.Msg }

// Unwrap returns the kind, for errors.Is.
func (r *Refusal) Unwrap() error { return r.Kind }

// RetryAfter is the client's advised wait (package apierr writes it as
// Retry-After).
func (r *Refusal) RetryAfter() time.Duration { return r.Retry }
