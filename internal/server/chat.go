package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/mmgate/mmgate/internal/apierr"
	"github.com/mmgate/mmgate/openai"
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
		s.writeError(w, r, apierr.From(err))
		return
	}
	if rec != nil {
		rec.model = req.Model
		rec.stream = req.Stream
	}
	gen, err := s.opts.Backend.Chat(r.Context(), req, requestID(r))
	if err != nil {
		s.writeError(w, r, apierr.From(err))
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
func (s *Server) wholeChat(w http.ResponseWriter, r *http.Request, req *openai.ChatRequest, gen openai.Generation) {
	n := gen.Choices()
	type acc struct {
		text, reasoning strings.Builder
		tools           []openai.ToolCall
		lp              []openai.Logprob
		finish          string
	}
	choices := make([]acc, n)
	var usage *openai.Usage
	for {
		ev, err := gen.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.writeError(w, r, apierr.From(err))
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
	resp := openai.ChatCompletion{
		ID: "chatcmpl-" + requestID(r), Object: "chat.completion", Created: s.now().Unix(),
		Model: gen.Model(), Choices: make([]openai.ChatChoice, 0, n), Usage: usage,
	}
	for i := range choices {
		c := &choices[i]
		msg := &openai.ChatMessage{Role: "assistant", Content: strPtr(c.text.String())}
		if c.reasoning.Len() > 0 {
			msg.ReasoningContent = strPtr(c.reasoning.String())
		}
		if len(c.tools) > 0 {
			msg.ToolCalls = wholeCalls(c.tools)
			if c.text.Len() == 0 {
				msg.Content = nil
			}
		}
		ch := openai.ChatChoice{Index: i, Message: msg, FinishReason: strPtr(orDefault(c.finish, "stop"))}
		if req.Logprobs {
			ch.Logprobs = &openai.ChoiceLogprobs{Content: listed(c.lp)}
		}
		resp.Choices = append(resp.Choices, ch)
	}
	writeJSON(w, http.StatusOK, resp)
}

// models handles GET /v1/models.
func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	list := openai.ModelList{Object: "list", Data: []openai.Model{}}
	for _, m := range s.opts.Backend.Models() {
		m.Object = orDefault(m.Object, "model")
		m.OwnedBy = orDefault(m.OwnedBy, "mmgate")
		list.Data = append(list.Data, m)
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
// runtime, model, health) and the discovery state when there is one, as
// /health gives them.
func (s *Server) ready(w http.ResponseWriter, _ *http.Request) {
	h := s.opts.Backend.Health()
	body := map[string]any{"status": "ready", "workers": h["workers"]}
	if body["workers"] == nil {
		body["workers"] = []any{}
	}
	if d, ok := h["discovery"]; ok {
		body["discovery"] = d
	}
	if !s.opts.Backend.Ready() {
		body["status"], body["reason"] = "not ready", "no healthy worker"
		writeJSON(w, http.StatusServiceUnavailable, body)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

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

func strPtr(s string) *string { return &s }

// listed returns lp with every list non-null, as the API writes lists
// (empty, never null), changing lp's elements in place.
func listed(lp []openai.Logprob) []openai.Logprob {
	if lp == nil {
		return []openai.Logprob{}
	}
	for i := range lp {
		l := &lp[i]
		if l.Bytes == nil {
			l.Bytes = []int{}
		}
		if l.TopLogprobs == nil {
			l.TopLogprobs = []openai.TopLogprob{}
		}
		for k := range l.TopLogprobs {
			if l.TopLogprobs[k].Bytes == nil {
				l.TopLogprobs[k].Bytes = []int{}
			}
		}
	}
	return lp
}

// mergeToolCalls folds streamed tool-call deltas into whole calls: a delta
// with a new Index starts a call, later ones append to its arguments.
func mergeToolCalls(calls, deltas []openai.ToolCall) []openai.ToolCall {
	for _, d := range deltas {
		i := len(calls) - 1
		for ; i >= 0 && !sameIndex(calls[i].Index, d.Index); i-- {
		}
		if i < 0 {
			calls = append(calls, d)
			continue
		}
		if d.ID != "" {
			calls[i].ID = d.ID
		}
		if d.Function.Name != "" {
			calls[i].Function.Name = d.Function.Name
		}
		calls[i].Function.Arguments += d.Function.Arguments
	}
	return calls
}

// wholeCalls are merged calls as a message lists them: without an index,
// typed "function" when they have an id.
func wholeCalls(calls []openai.ToolCall) []openai.ToolCall {
	for i := range calls {
		calls[i].Index = nil
		typed(&calls[i])
	}
	return calls
}

// typed sets a call's type, which the API gives with its id.
func typed(c *openai.ToolCall) {
	if c.ID != "" {
		c.Type = "function"
	}
}

func sameIndex(a, b *int) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// heavyBody is the body size from which parsing runs on the heavy pool.
const heavyBody = 64 << 10

// parse parses a chat request; large bodies (media inline) are parsed on
// the heavy pool when there is one, so that they do not hold up small
// requests.
func (s *Server) parse(ctx context.Context, body []byte) (*openai.ChatRequest, error) {
	if s.opts.Heavy == nil || len(body) < heavyBody {
		return openai.ParseChat(body)
	}
	var (
		req *openai.ChatRequest
		err error
	)
	if rerr := s.opts.Heavy(ctx, func() { req, err = openai.ParseChat(body) }); rerr != nil {
		return nil, rerr
	}
	return req, err
}
