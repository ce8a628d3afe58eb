package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mmgate/mmgate/internal/apierr"
	"github.com/mmgate/mmgate/prompt"
)

// chatCompletions handles POST /v1/chat/completions.
func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	rec := recordOf(r)
	body, aerr := s.readBody(w, r)
	if aerr != nil {
		s.writeError(w, r, aerr)
		return
	}
	req, err := s.parse(r.Context(), body)
	if err != nil {
		s.writeError(w, r, s.classify(err))
		return
	}
	if rec != nil {
		rec.model = req.Model
		rec.stream = req.Stream
	}
	gen, err := s.opts.Backend.Chat(r.Context(), req, requestID(r))
	if err != nil {
		s.writeError(w, r, s.classify(err))
		return
	}
	defer gen.Close()
	if rec != nil {
		rec.gen = gen
	}
	if req.Stream {
		s.streamChat(w, r, req, gen)
		return
	}
	s.wholeChat(w, r, req, gen)
}

// wholeChat collects every event and writes one chat.completion object.
func (s *Server) wholeChat(w http.ResponseWriter, r *http.Request, req *prompt.Request, gen Generation) {
	n := gen.Choices()
	type acc struct {
		text, reasoning strings.Builder
		tools           []ToolCall
		lp              []Logprob
		finish          string
	}
	choices := make([]acc, n)
	var usage *Usage
	for {
		ev, err := gen.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.writeError(w, r, s.classify(err))
			return
		}
		if ev.Index < 0 || ev.Index >= n {
			continue
		}
		c := &choices[ev.Index]
		c.text.WriteString(ev.Text)
		c.reasoning.WriteString(ev.Reasoning)
		c.tools = mergeToolCalls(c.tools, ev.ToolCalls)
		c.lp = append(c.lp, ev.Logprobs...)
		if ev.FinishReason != "" {
			c.finish = ev.FinishReason
		}
		if ev.Usage != nil {
			usage = ev.Usage
		}
	}
	resp := chatCompletion{
		ID: "chatcmpl-" + requestID(r), Object: "chat.completion", Created: s.now().Unix(),
		Model: gen.Model(), Choices: make([]chatChoice, 0, n), Usage: toUsage(usage),
	}
	for i := range choices {
		c := &choices[i]
		msg := &chatMessage{Role: "assistant", Content: strPtr(c.text.String())}
		if c.reasoning.Len() > 0 {
			msg.ReasoningContent = strPtr(c.reasoning.String())
		}
		if len(c.tools) > 0 {
			msg.ToolCalls = toToolCalls(c.tools, false)
			if c.text.Len() == 0 {
				msg.Content = nil
			}
		}
		ch := chatChoice{Index: i, Message: msg, FinishReason: strPtr(orDefault(c.finish, "stop"))}
		if req.Logprobs {
			ch.Logprobs = &logprobsJSON{Content: toLogprobs(c.lp)}
		}
		resp.Choices = append(resp.Choices, ch)
	}
	writeJSON(w, http.StatusOK, resp)
}

// streamChat writes server-sent events: a role chunk per choice, content
// chunks, a finish chunk per choice, an optional usage chunk, then [DONE].
// An error after the stream started is one `data: {"error": ...}` event
// followed by [DONE].
func (s *Server) streamChat(w http.ResponseWriter, r *http.Request, req *prompt.Request, gen Generation) {
	sse := newSSE(w)
	id := "chatcmpl-" + requestID(r)
	created := s.now().Unix()
	chunk := func(choices []chatChoice, usage *usageJSON) chatCompletion {
		if choices == nil {
			choices = []chatChoice{}
		}
		return chatCompletion{ID: id, Object: "chat.completion.chunk", Created: created, Model: gen.Model(), Choices: choices, Usage: usage}
	}
	n := gen.Choices()
	for i := 0; i < n; i++ {
		sse.event(chunk([]chatChoice{{Index: i, Delta: &chatMessage{Role: "assistant", Content: strPtr("")}}}, nil))
	}
	usage, ok := s.pump(r, sse, gen, func(ev Event) {
		if ev.Text == "" && ev.Reasoning == "" && len(ev.ToolCalls) == 0 && ev.FinishReason == "" {
			return
		}
		delta := &chatMessage{}
		if ev.Text != "" {
			delta.Content = strPtr(ev.Text)
		}
		if ev.Reasoning != "" {
			delta.ReasoningContent = strPtr(ev.Reasoning)
		}
		if len(ev.ToolCalls) > 0 {
			delta.ToolCalls = toToolCalls(ev.ToolCalls, true)
		}
		ch := chatChoice{Index: ev.Index, Delta: delta}
		if req.Logprobs && len(ev.Logprobs) > 0 {
			ch.Logprobs = &logprobsJSON{Content: toLogprobs(ev.Logprobs)}
		}
		if ev.FinishReason != "" {
			ch.FinishReason = strPtr(ev.FinishReason)
		}
		sse.event(chunk([]chatChoice{ch}, nil))
	})
	if !ok {
		return
	}
	if req.IncludeUsage && usage != nil {
		sse.event(chunk(nil, toUsage(usage)))
	}
	sse.done()
}

// models handles GET /v1/models.
func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	list := modelList{Object: "list", Data: []modelJSON{}}
	for _, m := range s.opts.Backend.Models() {
		list.Data = append(list.Data, modelJSON{ID: m.ID, Object: "model", Created: m.Created, OwnedBy: orDefault(m.OwnedBy, "mmgate")})
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	h := map[string]any{"status": "ok"}
	for k, v := range s.opts.Backend.Health() {
		h[k] = v
	}
	writeJSON(w, http.StatusOK, h)
}

// ready answers GET /health/ready, with each worker's details (url,
// runtime, model, health) as /health gives them.
func (s *Server) ready(w http.ResponseWriter, _ *http.Request) {
	workers := s.opts.Backend.Health()["workers"]
	if workers == nil {
		workers = []any{}
	}
	if !s.opts.Backend.Ready() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "not ready", "reason": "no healthy worker", "workers": workers})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "workers": workers})
}

func (s *Server) classify(err error) *apierr.Error { return apierr.From(err, s.opts.Classifiers...) }

func apierrBody(e *apierr.Error) map[string]any { return e.Body() }

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, `{"error":{"message":"encoding the response failed","type":"internal_error","code":"internal_error","param":null}}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// ctxDone reports whether ctx has ended.
func ctxDone(ctx context.Context) bool { return ctx.Err() != nil }

// mergeToolCalls folds streamed tool-call deltas into whole calls: a delta
// with a new Index starts a call, later ones append to its arguments.
func mergeToolCalls(calls, deltas []ToolCall) []ToolCall {
	for _, d := range deltas {
		i := len(calls) - 1
		for ; i >= 0 && calls[i].Index != d.Index; i-- {
		}
		if i < 0 {
			calls = append(calls, d)
			continue
		}
		if d.ID != "" {
			calls[i].ID = d.ID
		}
		if d.Name != "" {
			calls[i].Name = d.Name
		}
		calls[i].Arguments += d.Arguments
	}
	return calls
}

// heavyBody is the body size from which parsing runs on the heavy pool.
const heavyBody = 64 << 10

// parse parses a chat request; large bodies (media inline) are parsed on
// the heavy pool when there is one, so that they do not hold up small
// requests.
func (s *Server) parse(ctx context.Context, body []byte) (*prompt.Request, error) {
	if s.opts.Heavy == nil || len(body) < heavyBody {
		return prompt.Parse(body)
	}
	var (
		req *prompt.Request
		err error
	)
	if rerr := s.opts.Heavy(ctx, func() { req, err = prompt.Parse(body) }); rerr != nil {
		return nil, rerr
	}
	return req, err
}

// pump reads a generation's events until the end and hands each to emit. It
// records the time to first token and keeps the usage. An error ends the
// stream with one error event and [DONE] (nothing when the client is gone);
// ok is false then. Events are read ahead on their own goroutine, so that
// the ones already waiting go out with a single flush.
func (s *Server) pump(r *http.Request, sse *sseWriter, gen Generation, emit func(Event)) (usage *Usage, ok bool) {
	type next struct {
		ev  Event
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
			sse.hold = false
			switch {
			case s.cutByShutdown(r):
				sse.event(apierrBody(errShuttingDown()))
				sse.done()
			case r.Context().Err() != nil:
				// The client is gone.
			default:
				sse.event(apierrBody(s.classify(err)))
				sse.done()
			}
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
	}
}
