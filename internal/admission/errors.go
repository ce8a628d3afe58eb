package admission

import (
	"errors"
	"fmt"
	"time"

	"github.com/mmgate/mmgate/internal/limits"
)

// The kinds of refusal. A *Refusal wraps one of them.
var (
	// ErrTooLarge: the request plans more tensor bytes than one request
	// may (HTTP 413).
	ErrTooLarge = errors.New("planned tensor bytes over the limit")
	// ErrQueueTimeout: room for the request's planned bytes did not come
	// within the queue timeout (HTTP 503 with Retry-After): the queue's
	// own timeout, limits.ErrQueueTimeout.
	ErrQueueTimeout = limits.ErrQueueTimeout
	// ErrOptions: invalid Options.
	ErrOptions = errors.New("admission: bad options")
)

// The reasons of refusals (the reason label of
// mmgate_admission_refused_total).
const (
	ReasonTooLarge     = "too_large"     // over the per-request limit
	ReasonOverBudget   = "over_budget"   // over the whole budget (never admissible)
	ReasonQueueTimeout = "queue_timeout" // waited in vain
)

// Refusal is a request the controller refused.
type Refusal struct {
	// Kind is ErrTooLarge or ErrQueueTimeout.
	Kind error
	// Reason is the metric reason (Reason… constants).
	Reason string
	// Planned are the request's planned bytes; Allowed what it was
	// measured against (the per-request limit or the budget).
	Planned, Allowed int64
	// Waited is how long the request waited (queue timeouts).
	Waited time.Duration
	// Retry is when trying again may succeed (0: no advice).
	Retry time.Duration
}

func (r *Refusal) Error() string {
	switch r.Reason {
	case ReasonQueueTimeout:
		return fmt.Sprintf("admission: the request's media need %s of tensor memory (%d bytes planned) and the gateway's %s budget had no room for them within %v: %v",
			human(r.Planned), r.Planned, human(r.Allowed), r.Waited.Round(time.Millisecond), r.Kind)
	case ReasonOverBudget:
		return fmt.Sprintf("admission: the request's media need %d bytes of tensor memory (%s planned), over the gateway's whole budget of %d bytes (%s): %v",
			r.Planned, human(r.Planned), r.Allowed, human(r.Allowed), r.Kind)
	}
	return fmt.Sprintf("admission: the request's media need %d bytes of tensor memory (%s planned), over the per-request limit of %d bytes (%s): %v",
		r.Planned, human(r.Planned), r.Allowed, human(r.Allowed), r.Kind)
}

// Unwrap returns the kind.
func (r *Refusal) Unwrap() error { return r.Kind }

// RetryAfter is the advice for the Retry-After header.
func (r *Refusal) RetryAfter() time.Duration { return r.Retry }

// human writes n bytes with a binary unit, for messages.
func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
