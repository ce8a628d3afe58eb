package server

import (
	"encoding/json"
	"net/http"
)

// sseWriter writes server-sent events. Each event is flushed unless the
// writer is told more follow at once (hold), so that a burst of tokens
// leaves in one write.
type sseWriter struct {
	w       http.ResponseWriter
	flusher http.Flusher
	started bool
	hold    bool
}

func newSSE(w http.ResponseWriter) *sseWriter {
	f, _ := w.(http.Flusher)
	return &sseWriter{w: w, flusher: f}
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

// event writes `data: <json>\n\n`.
func (s *sseWriter) event(v any) {
	s.start()
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{"error":{"message":"encoding the event failed","type":"internal_error","code":"internal_error","param":null}}`)
	}
	buf := make([]byte, 0, len(b)+8)
	buf = append(buf, "data: "...)
	buf = append(buf, b...)
	buf = append(buf, '\n', '\n')
	s.w.Write(buf)
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
