package server

import (
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/mmgate/mmgate/internal/apierr"
	"github.com/mmgate/mmgate/openai"
)

// streamChat writes server-sent events: a role chunk per choice, content
// chunks, a finish chunk per choice, an optional usage chunk, then [DONE].
// An error after the stream started is one `data: {"error": ...}` event
// followed by [DONE].
func (s *Server) streamChat(w http.ResponseWriter, r *http.Request, req *openai.ChatRequest, gen openai.Generation) {
	sse := newSSE(w)
	c := &chatChunks{chunk: openai.ChatCompletion{ID: "chatcmpl-" + requestID(r), Object: "chat.completion.chunk", Created: s.now().Unix(), Model: gen.Model()}}
	for i := range gen.Choices() {
		sse.event(c.role(i))
	}
	usage, ok := s.pump(r, sse, gen, func(ev openai.Event) {
		if ev.Text == "" && ev.Reasoning == "" && len(ev.ToolCalls) == 0 && ev.FinishReason == "" {
			return
		}
		sse.event(c.delta(ev, req.Logprobs))
	})
	if !ok {
		return
	}
	if req.IncludeUsage && usage != nil {
		sse.event(c.usage(usage))
	}
	sse.done()
}

// chatChunks builds a stream's chunks in one value that is reused: each
// chunk is written out before the next is built, so that a token costs no
// allocation here.
type chatChunks struct {
	chunk  openai.ChatCompletion
	choice [1]openai.ChatChoice
	msg    openai.ChatMessage
	lp     openai.ChoiceLogprobs
	// The strings the chunk points to.
	text, reasoning, finish string
}

// role is the first chunk of choice i: the assistant role, empty content.
func (c *chatChunks) role(i int) *openai.ChatCompletion {
	c.text = ""
	c.msg = openai.ChatMessage{Role: "assistant", Content: &c.text}
	c.choice[0] = openai.ChatChoice{Index: i, Delta: &c.msg}
	c.chunk.Choices, c.chunk.Usage = c.choice[:], nil
	return &c.chunk
}

// delta is the chunk of one event.
func (c *chatChunks) delta(ev openai.Event, logprobs bool) *openai.ChatCompletion {
	c.msg = openai.ChatMessage{}
	c.text, c.reasoning, c.finish = ev.Text, ev.Reasoning, ev.FinishReason
	if ev.Text != "" {
		c.msg.Content = &c.text
	}
	if ev.Reasoning != "" {
		c.msg.ReasoningContent = &c.reasoning
	}
	if len(ev.ToolCalls) > 0 {
		for i := range ev.ToolCalls {
			typed(&ev.ToolCalls[i])
		}
		c.msg.ToolCalls = ev.ToolCalls
	}
	c.choice[0] = openai.ChatChoice{Index: ev.Index, Delta: &c.msg}
	if logprobs && len(ev.Logprobs) > 0 {
		c.lp.Content = listed(ev.Logprobs)
		c.choice[0].Logprobs = &c.lp
	}
	if ev.FinishReason != "" {
		c.choice[0].FinishReason = &c.finish
	}
	c.chunk.Choices, c.chunk.Usage = c.choice[:], nil
	return &c.chunk
}

// usage is the usage chunk: no choices.
func (c *chatChunks) usage(u *openai.Usage) *openai.ChatCompletion {
	c.chunk.Choices, c.chunk.Usage = []openai.ChatChoice{}, u
	return &c.chunk
}

// pump reads a generation's events until the end and hands each to emit. It
// records the time to first token and keeps the usage. An error ends the
// stream with one error event and [DONE] (nothing when the client is gone);
// ok is false then. Events are read ahead on their own goroutine, so that
// the ones already waiting go out with a single flush.
func (s *Server) pump(r *http.Request, sse *sseWriter, gen openai.Generation, emit func(openai.Event)) (usage *openai.Usage, ok bool) {
	type next struct {
		ev  openai.Event
		err error
	}
	queue := make(chan next, 64)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			ev, err := gen.Next()
			select {
			case queue <- next{ev, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	rec := recordOf(r)
	for {
		n := <-queue
		ev, err := n.ev, n.err
		if errors.Is(err, io.EOF) {
			return usage, true
		}
		if err != nil {
			s.streamError(r, sse, err)
			return nil, false
		}
		if rec != nil && rec.firstToken.IsZero() && (ev.Text != "" || ev.Reasoning != "" || len(ev.ToolCalls) > 0) {
			rec.firstToken = time.Now()
			s.metrics.ttft.Observe(rec.firstToken.Sub(rec.start).Seconds())
		}
		if ev.Usage != nil {
			usage = ev.Usage
		}
		sse.hold = len(queue) > 0
		emit(ev)
		if sse.err != nil {
			// The client is gone or stopped reading; the handler's
			// return closes the generation (an Abort to the worker).
			return nil, false
		}
	}
}

// streamError ends a started stream that failed: an error event and [DONE],
// or nothing when the client is gone.
func (s *Server) streamError(r *http.Request, sse *sseWriter, err error) {
	sse.hold = false
	switch {
	case s.cutByShutdown(r):
		sse.event(errShuttingDown().Body())
		sse.done()
	case r.Context().Err() != nil:
		// The client is gone.
	default:
		sse.event(apierr.From(err).Body())
		sse.done()
	}
}
