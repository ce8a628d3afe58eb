package server

import (
	"errors"
	"net/http"
	"os"
	"time"
)

// This file answers: how does a response to a client that stopped reading
// end? Every write and flush of a response runs under a write deadline
// (http.ResponseController) of the client stall timeout, moved forward as
// the response progresses; a write that cannot complete by then fails, and
// net/http then cancels the request's context (so the generation is
// aborted at its worker and its shared memory released) and closes the
// connection. The handler sees the failure, stops writing, and returns
// its processing slot.

// writePiece is the largest piece written under one deadline, so that a
// large response to a slow but reading client is judged by its progress,
// not by its size.
const writePiece = 64 << 10

// statusWriter remembers the status code and the first write error, and
// keeps the write deadline ahead of each write.
type statusWriter struct {
	http.ResponseWriter
	status int
	rc     *http.ResponseController
	// stall is the client stall timeout (0: no deadline); the deadline is
	// moved forward at a write from extendAt on, so that a stream of
	// small writes sets it once per stall/16 rather than at every token.
	stall    time.Duration
	extendAt time.Time
	err      error
	// written counts the body bytes the handler wrote.
	written int64
}

// newStatusWriter wraps w and sets its first write deadline: the one left
// by an earlier request on the connection may have passed.
func newStatusWriter(w http.ResponseWriter, stall time.Duration) *statusWriter {
	sw := &statusWriter{ResponseWriter: w, rc: http.NewResponseController(w), stall: stall}
	sw.ready()
	return sw
}

// ready moves the write deadline forward when it is due.
func (w *statusWriter) ready() {
	if w.stall <= 0 {
		return
	}
	now := time.Now()
	if now.Before(w.extendAt) {
		return
	}
	if w.rc.SetWriteDeadline(now.Add(w.stall)) != nil {
		w.stall = 0 // not supported (a test's recorder): no deadline
		return
	}
	w.extendAt = now.Add(w.stall / 16)
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.err != nil {
		return 0, w.err
	}
	n := 0
	for len(b) > 0 {
		p := b[:min(len(b), writePiece)]
		w.ready()
		k, err := w.ResponseWriter.Write(p)
		n += k
		w.written += int64(k)
		if err != nil {
			w.err = err
			return n, err
		}
		b = b[k:]
	}
	return n, nil
}

// FlushError flushes under the deadline and reports the failure
// (http.ResponseController finds it).
func (w *statusWriter) FlushError() error {
	if w.err != nil {
		return w.err
	}
	w.ready()
	err := w.rc.Flush()
	if errors.Is(err, http.ErrNotSupported) {
		return nil
	}
	if err != nil {
		w.err = err
	}
	return err
}

func (w *statusWriter) Flush() { w.FlushError() }

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// stalled reports whether the response failed because the client did not
// take it within the stall timeout.
func (w *statusWriter) stalled() bool {
	return w.err != nil && errors.Is(w.err, os.ErrDeadlineExceeded)
}
