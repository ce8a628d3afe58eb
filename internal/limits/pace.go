package limits

import (
	"fmt"
	"time"
)

// Pace is how fast a request body must arrive. A body is cut when no byte
// has come for Idle, or when, Grace after it began, fewer than MinRate
// bytes per second have come since Grace: received < MinRate·(t − start −
// Grace). The grace is a head start, so a client sending at exactly
// MinRate is never cut, however large its body. Zero fields disable their
// rule; the zero Pace never cuts.
type Pace struct {
	Idle    time.Duration
	MinRate int64 // bytes per second
	Grace   time.Duration
}

// Deadline is when the body is cut unless more of it arrives: the earlier
// of last+Idle and start+Grace+received/MinRate. start is when the body
// began, last when its latest byte came (start before the first). The zero
// time means never.
func (p Pace) Deadline(start, last time.Time, received int64) time.Time {
	var d time.Time
	if p.Idle > 0 {
		d = last.Add(p.Idle)
	}
	if p.MinRate > 0 {
		// received/MinRate seconds, in nanoseconds without overflow for
		// any body a server accepts.
		ahead := time.Duration(float64(received) / float64(p.MinRate) * float64(time.Second))
		if r := start.Add(p.Grace + ahead); d.IsZero() || r.Before(d) {
			d = r
		}
	}
	return d
}

// Cut is the refusal of a body cut at now: which rule cut it.
func (p Pace) Cut(start, last, now time.Time, received int64) *Refusal {
	msg := fmt.Sprintf("the request body arrived too slowly: %d bytes in %v, under the minimum of %d bytes per second after %v",
		received, now.Sub(start).Round(time.Millisecond), p.MinRate, p.Grace)
	if p.Idle > 0 && !now.Before(last.Add(p.Idle)) {
		msg = fmt.Sprintf("the request body stopped arriving: no byte for %v", p.Idle)
	}
	return &Refusal{Kind: ErrBodyTimeout, Reason: ReasonBodyTimeout, Msg: msg}
}
