package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/internal/server"
	"github.com/mmgate/mmgate/shm"
)

// This file answers: how does the gateway stop? On SIGTERM/SIGINT it stops
// accepting, lets in-flight requests finish for --shutdown-timeout, then
// cuts the rest (their contexts end, so the engine sends Abort to their
// workers), waits for those aborts, and removes every shared-memory segment
// it created.

// cutGrace bounds the wait for cut requests to unwind (their Abort calls
// are bounded by the engine's abort timeout).
const cutGrace = engine.DefaultAbortTimeout + 3*time.Second

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

// shutdown drains hs: no new connections, in-flight requests get timeout to
// finish; then the requests left are cut through cancelRequests (the base
// context of every request) and given cutGrace to unwind.
func shutdown(log *slog.Logger, hs *http.Server, srv *server.Server, t *inflight, cancelRequests context.CancelFunc, timeout time.Duration) {
	log.Info("shutting down: not accepting new requests", "in_flight", t.n.Load(), "timeout", timeout)
	srv.Drain()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := hs.Shutdown(ctx); err == nil {
		log.Info("shutdown: every in-flight request finished")
		return
	}
	log.Warn("shutdown: timeout reached, cutting the requests still in flight (aborting them at their workers)", "in_flight", t.n.Load())
	cancelRequests()
	if !t.wait(cutGrace) {
		log.Warn("shutdown: requests still running after being cut", "in_flight", t.n.Load())
	}
	hs.Close()
}

// removeOwnSegments deletes the shared-memory segments this pool created
// (their names carry its prefix and owner id) that are still in the
// directory: segments handed to workers that were never read.
func removeOwnSegments(log *slog.Logger, pool *shm.Pool) {
	dir := pool.Probe().Dir
	if dir == "" {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	mine := pool.Prefix() + pool.Owner() + "-"
	n := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), mine) && e.Type().IsRegular() {
			if os.Remove(filepath.Join(dir, e.Name())) == nil {
				n++
			}
		}
	}
	if n > 0 {
		log.Info("shutdown: removed shared-memory segments left by cut requests", "segments", n)
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
