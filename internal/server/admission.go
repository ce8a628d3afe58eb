package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/mmgate/mmgate/internal/apierr"
	"github.com/mmgate/mmgate/internal/limits"
)

// This file answers: when may a request use the gateway, and what happens
// when it may not? In order: a client over its own concurrency or rate is
// refused at arrival (429, Retry-After); a request body is received under
// the upload bounds (count and bytes held, 429 over them) and the pace
// rule (408 and the connection closed when it stops or crawls); only then
// does the request wait for a processing slot (--max-in-flight), 429 at
// once when there is no queue, 503 after the queue timeout. Each refusal
// is counted by reason; each cut is logged with the client's address.

// admission holds the limits a Server applies, built once from Options.
type admission struct {
	slots       *limits.Queue // processing slots
	uploads     *limits.Queue // bodies being received, or received and waiting for a slot
	uploadBytes *limits.Queue // memory those bodies hold
	clients     *limits.Clients
	pace        limits.Pace
	stall       time.Duration
}

func newAdmission(o *Options) (*admission, error) {
	a := &admission{pace: limits.Pace{Idle: o.BodyReadTimeout, MinRate: o.BodyMinRate, Grace: o.BodyRateGrace}, stall: o.ClientStallTimeout}
	var err error
	if a.slots, err = limits.NewQueue(limits.QueueOptions{Capacity: int64(o.MaxInFlight), Timeout: o.QueueTimeout,
		Reason: limits.ReasonInFlight, What: "requests in flight"}); err != nil {
		return nil, err
	}
	if a.uploads, err = limits.NewQueue(limits.QueueOptions{Capacity: int64(o.MaxUploads),
		Reason: limits.ReasonUploads, What: "request bodies being received"}); err != nil {
		return nil, err
	}
	if a.uploadBytes, err = limits.NewQueue(limits.QueueOptions{Capacity: o.MaxUploadBytes,
		Reason: limits.ReasonUploads, What: "bytes of request bodies being received"}); err != nil {
		return nil, err
	}
	a.clients, err = limits.NewClients(o.Clients)
	return a, err
}

// admitClient applies the per-client limits to a request of rec's client.
func (s *Server) admitClient(rec *record) error {
	if s.adm.clients == nil {
		return nil
	}
	if err := s.adm.clients.Admit(rec.clientKey); err != nil {
		return err
	}
	rec.admitted = true
	return nil
}

// takeSlot waits for a processing slot for rec's request.
func (s *Server) takeSlot(ctx context.Context, rec *record) error {
	if rec == nil || rec.slot {
		return nil
	}
	if !s.adm.slots.TryAcquire(1) {
		start := time.Now()
		err := s.adm.slots.Acquire(ctx, 1)
		if !errors.Is(err, limits.ErrFull) {
			s.metrics.queueWait.Observe(time.Since(start).Seconds())
		}
		if err != nil {
			return err
		}
	}
	rec.slot = true
	return nil
}

// release gives back what rec's request held.
func (s *Server) release(rec *record) {
	if rec.slot {
		s.adm.slots.Release(1)
	}
	if rec.admitted {
		s.adm.clients.Done(rec.clientKey)
	}
}

// refusal is the error to write for a request refused by a limit, counted
// by its reason and, for a cut (the request was under way), logged with
// the client's address. closeConn closes the connection after the answer:
// the request's body was not read (or not to its end), and reading what is
// left would serve the client that is refused.
func (s *Server) refusal(w http.ResponseWriter, r *http.Request, err error, closeConn bool) *apierr.Error {
	var ref *limits.Refusal
	if errors.As(err, &ref) {
		s.metrics.refused.WithLabelValues(ref.Reason).Inc()
		if ref.Reason == limits.ReasonBodyTimeout {
			s.logCut(r, ref.Reason, ref.Msg)
		}
	}
	if closeConn {
		closeUnread(w, r)
	}
	return apierr.From(err)
}

// closeUnread makes the connection of a request whose body is left unread
// close after the answer, at once: net/http would otherwise read up to
// 256 KiB of what is left first, at the client's pace.
func closeUnread(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength == 0 {
		return
	}
	w.Header().Set("Connection", "close")
	if rec := recordOf(r); rec != nil {
		rec.rc.SetReadDeadline(time.Now())
	}
}

// logCut writes the log line of a request cut by a limit.
func (s *Server) logCut(r *http.Request, reason, detail string) {
	rec := recordOf(r)
	if rec == nil {
		return
	}
	rec.cut = reason
	s.log.Warn("client cut", "reason", reason, "client", rec.client, "request_id", rec.id, "route", rec.route, "detail", detail)
}
