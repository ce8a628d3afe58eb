package server

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mmgate/mmgate/openai"
)

// eventsGen replays a fixed list of events.
type eventsGen struct {
	events []openai.Event
	n      int
}

func (g *eventsGen) Model() string     { return "demo" }
func (g *eventsGen) Choices() int      { return g.n }
func (g *eventsGen) PromptTokens() int { return 7 }
func (g *eventsGen) Close()            {}
func (g *eventsGen) Next() (openai.Event, error) {
	if len(g.events) == 0 {
		return openai.Event{}, io.EOF
	}
	ev := g.events[0]
	g.events = g.events[1:]
	return ev, nil
}

// eventsBackend answers every request with events() (two choices).
type eventsBackend struct {
	fakeBackend
	events func() []openai.Event
}

func (b *eventsBackend) Chat(context.Context, *openai.ChatRequest, string) (openai.Generation, error) {
	return &eventsGen{events: b.events(), n: 2}, nil
}

func (b *eventsBackend) Completion(ctx context.Context, req *openai.CompletionRequest, id string) (openai.Generation, error) {
	return b.Chat(ctx, nil, id)
}

// richEvents has reasoning, content with logprobs (lists left nil, written
// as []), tool-call deltas of two calls, finish reasons and usage.
func richEvents() []openai.Event {
	i0, i1 := 0, 1
	call := func(i *int, id, name, args string) openai.ToolCall {
		return openai.ToolCall{Index: i, ID: id, Function: openai.FunctionCall{Name: name, Arguments: args}}
	}
	return []openai.Event{
		{Index: 0, Reasoning: "think <a>"},
		{Index: 1, Text: "hi \"there\"", Logprobs: []openai.Logprob{{Token: "hi", Logprob: -0.5},
			{Token: "x", Logprob: -1, Bytes: []int{120}, TopLogprobs: []openai.TopLogprob{{Token: "y", Logprob: -2}}}}},
		{Index: 0, ToolCalls: []openai.ToolCall{call(&i0, "call_1", "get", ""), call(&i0, "", "", `{"a":`), call(&i0, "", "", "1}")}},
		{Index: 0, ToolCalls: []openai.ToolCall{call(&i1, "call_2", "put", ""), call(&i1, "", "", "{}")}},
		{Index: 0, FinishReason: "tool_calls", Final: true, CompletionTokens: 5},
		{Index: 1, Text: "end", FinishReason: "length", Final: true, CompletionTokens: 3},
		{Index: 1, Usage: openai.NewUsage(7, 8, 1)},
	}
}

// TestWireShapes pins the bytes of every response shape — chat and
// completions, streamed and whole, with logprobs, reasoning, tool calls and
// usage, and /v1/models — to testdata/wire.golden, which the server wrote
// before its response types moved to package openai.
func TestWireShapes(t *testing.T) {
	s, err := New(Options{Backend: &eventsBackend{events: richEvents}, Now: func() time.Time { return time.Unix(100, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	do := func(method, path, body string) string {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("X-Request-Id", "rid")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w.Body.String()
	}
	for _, body := range []string{
		`{"model":"demo","messages":[{"role":"user","content":"hi"}],"stream":true,"logprobs":true,"stream_options":{"include_usage":true}}`,
		`{"model":"demo","messages":[{"role":"user","content":"hi"}],"logprobs":true}`,
		`{"model":"demo","messages":[{"role":"user","content":"hi"}],"stream":true}`,
		`{"model":"demo","messages":[{"role":"user","content":"hi"}]}`,
	} {
		out.WriteString(do("POST", "/v1/chat/completions", body) + "\n=====\n")
	}
	for _, body := range []string{
		`{"model":"demo","prompt":"hi","stream":true,"logprobs":2,"stream_options":{"include_usage":true}}`,
		`{"model":"demo","prompt":"hi","logprobs":2}`,
		`{"model":"demo","prompt":"hi","stream":true}`,
	} {
		out.WriteString(do("POST", "/v1/completions", body) + "\n=====\n")
	}
	out.WriteString(do("GET", "/v1/models", ""))
	want, err := os.ReadFile("testdata/wire.golden")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("responses differ from testdata/wire.golden:\n%s", out.String())
	}
}

// TestStreamAllocations: a streamed token costs the server no allocation
// (the chunk is built in a reused value and encoded into a reused buffer).
func TestStreamAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	measure := func(n int) float64 {
		events := make([]openai.Event, n)
		for i := range events {
			events[i] = openai.Event{Index: i % 2, Text: "tok"}
		}
		events[n-1].FinishReason, events[n-1].Final = "stop", true
		s, err := New(Options{Backend: &eventsBackend{events: func() []openai.Event { return events }}})
		if err != nil {
			t.Fatal(err)
		}
		body := `{"model":"demo","messages":[{"role":"user","content":"hi"}],"stream":true}`
		return testing.AllocsPerRun(20, func() {
			s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body)))
		})
	}
	few, many := measure(10), measure(410)
	if per := (many - few) / 400; per > 0.25 {
		t.Errorf("%.2f allocations per streamed event (%.0f for 10 events, %.0f for 410)", per, few, many)
	}
}
