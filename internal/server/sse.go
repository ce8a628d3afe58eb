package server

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// sseWriter writes server-sent events. Each event is flushed unless the
// writer is told more follow at once (hold), so that a burst of tokens
// leaves in one write. Events are encoded into one buffer the writer keeps.
// The first failed write or flush (a client gone, or one that stopped
// reading: the stall deadline) is kept in err, and nothing is written
// after it.
type sseWriter struct {
	w       http.ResponseWriter
	flusher flushErrorer
	started bool
	hold    bool
	buf     bytes.Buffer
	enc     *json.Encoder
	err     error
}

// flushErrorer is a flush that reports failure (statusWriter).
type flushErrorer interface{ FlushError() error }

// plainFlusher adapts an http.Flusher that cannot report failure.
type plainFlusher struct{ http.Flusher }

func (f plainFlusher) FlushError() error { f.Flush(); return nil }

func newSSE(w http.ResponseWriter) *sseWriter {
	s := &sseWriter{w: w}
	switch f := w.(type) {
	case flushErrorer:
		s.flusher = f
	case http.Flusher:
		s.flusher = plainFlusher{f}
	}
	s.enc = json.NewEncoder(&s.buf)
	return s
}

// write writes b, then flushes unless held.
func (s *sseWriter) write(b []byte, hold bool) {
	if s.err != nil {
		return
	}
	if _, s.err = s.w.Write(b); s.err == nil && s.flusher != nil && !hold {
		s.err = s.flusher.FlushError()
	}
}

func (s *sseWriter) start() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
}

// encodeFailed is the event written when an event cannot be encoded.
const encodeFailed = `{"error":{"message":"encoding the event failed","type":"internal_error","code":"internal_error","param":null}}` + "\n"

// event writes `data: <json>\n\n`.
func (s *sseWriter) event(v any) {
	s.start()
	s.buf.Reset()
	s.buf.WriteString("data: ")
	// Encode writes what json.Marshal gives, then a newline.
	if err := s.enc.Encode(v); err != nil {
		s.buf.Reset()
		s.buf.WriteString("data: " + encodeFailed)
	}
	s.buf.WriteByte('\n')
	s.write(s.buf.Bytes(), s.hold)
}

// done writes the terminating `data: [DONE]` event.
func (s *sseWriter) done() {
	s.start()
	s.write([]byte("data: [DONE]\n\n"), false)
}
