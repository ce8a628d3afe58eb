package server

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// sseWriter writes server-sent events. Each event is flushed unless the
// writer is told more follow at once (hold), so that a burst of tokens
// leaves in one write. Events are encoded into one buffer the writer keeps.
type sseWriter struct {
	w       http.ResponseWriter
	flusher http.Flusher
	started bool
	hold    bool
	buf     bytes.Buffer
	enc     *json.Encoder
}

func newSSE(w http.ResponseWriter) *sseWriter {
	f, _ := w.(http.Flusher)
	s := &sseWriter{w: w, flusher: f}
	s.enc = json.NewEncoder(&s.buf)
	return s
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
	s.w.Write(s.buf.Bytes())
	if s.flusher != nil && !s.hold {
		s.flusher.Flush()
	}
}

// done writes the terminating `data: [DONE]` event.
func (s *sseWriter) done() {
	s.start()
	s.w.Write([]byte("data: [DONE]\n\n"))
	if s.flusher != nil {
		s.flusher.Flush()
	}
}
