package server

import (
	"context"
	"crypto/tls"
	stdlog "log"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// This file answers: how does the gateway serve, and how does it stop?
// Run serves until its context ends; then it stops accepting, lets the
// requests in flight finish for ShutdownTimeout, cuts the rest (their
// contexts end, so their Backend calls abort their generations) and waits
// CutGrace for them to unwind.

// DefaultCutGrace is RunOptions.CutGrace's default.
const DefaultCutGrace = 5 * time.Second

// RunOptions say how Run serves and stops.
type RunOptions struct {
	// TLS, when set, serves HTTPS with this configuration.
	TLS *tls.Config
	// ShutdownTimeout is how long the requests in flight when the context
	// ends may take to finish; zero cuts them at once.
	ShutdownTimeout time.Duration
	// CutGrace bounds the wait for cut requests to unwind (default
	// DefaultCutGrace): a Backend returns once it has aborted its
	// generation at the worker, which the engine bounds.
	CutGrace time.Duration
	// Ready, when set, runs once the listener is open, before the first
	// request is served.
	Ready func()
}

// Run serves s on l (bounded by Listener) until ctx ends, then shuts down
// as RunOptions say and returns nil; an error means serving failed.
func (s *Server) Run(ctx context.Context, l net.Listener, o RunOptions) error {
	if o.CutGrace <= 0 {
		o.CutGrace = DefaultCutGrace
	}
	l, err := s.Listener(l)
	if err != nil {
		return err
	}
	// Every request's context derives from reqCtx: cancelling it cuts the
	// requests still running at the end of a shutdown.
	reqCtx, cutRequests := context.WithCancel(context.Background())
	defer cutRequests()
	track := &inflight{}
	hs := s.HTTPServer(track.wrap(s), reqCtx, stdlog.New(httpErrorLog{s.log}, "", 0))
	if o.Ready != nil {
		o.Ready()
	}
	errc := make(chan error, 1)
	go func() {
		if o.TLS != nil {
			hs.TLSConfig = o.TLS
			errc <- hs.ServeTLS(l, "", "")
			return
		}
		errc <- hs.Serve(l)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.shutdown(hs, track, cutRequests, o)
	return nil
}

// shutdown drains hs: no new connections, in-flight requests get
// o.ShutdownTimeout to finish; then the requests left are cut through
// cutRequests (the base context of every request) and given o.CutGrace to
// unwind.
func (s *Server) shutdown(hs *http.Server, t *inflight, cutRequests context.CancelFunc, o RunOptions) {
	s.log.Info("shutting down: not accepting new requests", "in_flight", t.n.Load(), "timeout", o.ShutdownTimeout)
	s.Drain()
	ctx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(ctx); err == nil {
		s.log.Info("shutdown: every in-flight request finished")
		return
	}
	s.log.Warn("shutdown: timeout reached, cutting the requests still in flight (aborting them at their workers)", "in_flight", t.n.Load())
	cutRequests()
	start := time.Now()
	if !t.wait(o.CutGrace) {
		s.log.Warn("shutdown: requests still running after being cut", "in_flight", t.n.Load())
		hs.Close()
		return
	}
	// The handlers have returned, but their connections may still be
	// writing the responses (the server flushes them after the handler):
	// closing now could turn a cut request's 503 into a reset. A second
	// Shutdown waits for the connections to go idle, within what is left
	// of the grace.
	ctx, cancel = context.WithTimeout(context.Background(), max(o.CutGrace-time.Since(start), 0))
	defer cancel()
	if hs.Shutdown(ctx) != nil {
		hs.Close()
	}
}

// inflight counts running HTTP handlers.
type inflight struct {
	wg sync.WaitGroup
	n  atomic.Int64
}

func (t *inflight) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.wg.Add(1)
		t.n.Add(1)
		defer func() { t.n.Add(-1); t.wg.Done() }()
		h.ServeHTTP(w, r)
	})
}

// wait waits for every handler to return, at most d; it reports whether
// they all did.
func (t *inflight) wait(d time.Duration) bool {
	done := make(chan struct{})
	go func() { t.wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// httpErrorLog routes net/http's own log lines (accept errors, handshake
// failures) to the structured log; TLS handshake failures, which load
// balancers' TCP probes cause all day, go to debug.
type httpErrorLog struct{ log *slog.Logger }

func (h httpErrorLog) Write(p []byte) (int, error) {
	msg := strings.TrimSpace(string(p))
	if strings.Contains(msg, "TLS handshake error") {
		h.log.Debug(msg)
	} else {
		h.log.Warn(msg)
	}
	return len(p), nil
}
