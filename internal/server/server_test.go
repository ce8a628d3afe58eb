package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/openai"
)

// fakeBackend answers every request with the words of `reply`, one event per
// word, for each of n choices.
type fakeBackend struct {
	reply   string
	err     error
	midErr  error
	block   chan struct{}
	ready   bool
	started chan struct{}
}

type fakeGen struct {
	events []openai.Event
	err    error
	n      int
	closed bool
	mu     sync.Mutex
}

func (b *fakeBackend) Chat(ctx context.Context, req *openai.ChatRequest, id string) (openai.Generation, error) {
	if b.started != nil {
		b.started <- struct{}{}
	}
	if b.block != nil {
		select {
		case <-b.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if b.err != nil {
		return nil, b.err
	}
	n := 1
	if req.N != nil {
		n = *req.N
	}
	g := &fakeGen{n: n, err: b.midErr}
	words := strings.Fields(b.reply)
	for i := 0; i < n; i++ {
		for k, w := range words {
			ev := openai.Event{Index: i, Text: w + " ", CompletionTokens: k + 1}
			if k == len(words)-1 {
				ev.FinishReason, ev.Final = "stop", true
			}
			g.events = append(g.events, ev)
		}
	}
	g.events[len(g.events)-1].Usage = openai.NewUsage(10, n*len(words), 2)
	return g, nil
}
func (b *fakeBackend) Models() []openai.Model { return []openai.Model{{ID: "demo", Created: 1}} }
func (b *fakeBackend) Ready() bool            { return b.ready }
func (b *fakeBackend) Health() map[string]any { return map[string]any{"decoders_exact": true} }

func (g *fakeGen) Model() string     { return "demo" }
func (g *fakeGen) Choices() int      { return g.n }
func (g *fakeGen) PromptTokens() int { return 10 }
func (g *fakeGen) Next() (openai.Event, error) {
	if len(g.events) == 0 {
		return openai.Event{}, io.EOF
	}
	if g.err != nil && len(g.events) == 1 {
		return openai.Event{}, g.err
	}
	ev := g.events[0]
	g.events = g.events[1:]
	return ev, nil
}
func (g *fakeGen) Close() { g.mu.Lock(); g.closed = true; g.mu.Unlock() }
func (g *fakeGen) Timings() map[string]time.Duration {
	return map[string]time.Duration{"tokenize": time.Millisecond}
}

func newTest(t *testing.T, b Backend, mod func(*Options)) *httptest.Server {
	t.Helper()
	o := Options{Backend: b}
	if mod != nil {
		mod(&o)
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts
}

func post(t *testing.T, url, body string, hdr ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

const simple = `{"model":"demo","messages":[{"role":"user","content":"hi"}]`

func TestNonStreaming(t *testing.T) {
	ts := newTest(t, &fakeBackend{reply: "hello there"}, nil)
	resp := post(t, ts.URL, simple+`,"n":2}`, "X-Request-Id", "abc-123")
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("X-Request-Id") != "abc-123" {
		t.Fatalf("status %d id %q", resp.StatusCode, resp.Header.Get("X-Request-Id"))
	}
	var got struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Choices []struct {
			Index   int `json:"index"`
			Message struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens        int `json:"prompt_tokens"`
			CompletionTokens    int `json:"completion_tokens"`
			TotalTokens         int `json:"total_tokens"`
			PromptTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Object != "chat.completion" || got.ID != "chatcmpl-abc-123" || len(got.Choices) != 2 {
		t.Fatalf("%+v", got)
	}
	for i, c := range got.Choices {
		if c.Index != i || c.Message.Role != "assistant" || c.Message.Content != "hello there " || c.FinishReason != "stop" {
			t.Errorf("choice %d: %+v", i, c)
		}
	}
	if got.Usage.PromptTokens != 10 || got.Usage.CompletionTokens != 4 || got.Usage.TotalTokens != 14 || got.Usage.PromptTokensDetails.CachedTokens != 2 {
		t.Errorf("usage %+v", got.Usage)
	}
}

func readSSE(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, d)
		} else if line != "" {
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	return out
}

func TestStreaming(t *testing.T) {
	ts := newTest(t, &fakeBackend{reply: "a b c"}, nil)
	resp := post(t, ts.URL, simple+`,"stream":true,"stream_options":{"include_usage":true}}`)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := readSSE(t, resp.Body)
	if events[len(events)-1] != "[DONE]" {
		t.Fatalf("last event %q", events[len(events)-1])
	}
	var text strings.Builder
	finish, usage := "", 0
	for _, e := range events[:len(events)-1] {
		var c struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta struct {
					Content *string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				TotalTokens int `json:"total_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(e), &c); err != nil || c.Object != "chat.completion.chunk" {
			t.Fatalf("chunk %q: %v", e, err)
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				text.WriteString(*ch.Delta.Content)
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
		if c.Usage != nil {
			usage = c.Usage.TotalTokens
		}
	}
	if text.String() != "a b c " || finish != "stop" || usage != 13 {
		t.Errorf("text %q finish %q usage %d", text.String(), finish, usage)
	}
}

func TestStreamErrorAfterStart(t *testing.T) {
	ts := newTest(t, &fakeBackend{reply: "a b c", midErr: engine.ErrWorker}, nil)
	resp := post(t, ts.URL, simple+`,"stream":true}`)
	defer resp.Body.Close()
	events := readSSE(t, resp.Body)
	if len(events) < 2 || events[len(events)-1] != "[DONE]" || !strings.Contains(events[len(events)-2], `"worker_error"`) {
		t.Fatalf("events %q", events)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name   string
		b      *fakeBackend
		body   string
		status int
		code   string
	}{
		{"bad json", &fakeBackend{reply: "x"}, `{"model":`, 400, "invalid_request_error"},
		{"no messages", &fakeBackend{reply: "x"}, `{"model":"demo"}`, 400, "invalid_request_error"},
		{"model not found", &fakeBackend{err: fmt.Errorf("pick: %w", engine.ErrModelNotFound)}, simple + `}`, 404, "model_not_found"},
		{"no worker", &fakeBackend{err: engine.ErrNoWorker}, simple + `}`, 503, "no_worker"},
		{"too large body", &fakeBackend{reply: "x"}, simple + `,"user":"` + strings.Repeat("x", 2000) + `"}`, 413, "too_large"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := newTest(t, c.b, func(o *Options) { o.MaxBodyBytes = 1000 })
			resp := post(t, ts.URL, c.body)
			defer resp.Body.Close()
			var e struct {
				Error struct {
					Message string `json:"message"`
					Type    string `json:"type"`
					Code    string `json:"code"`
				} `json:"error"`
			}
			json.NewDecoder(resp.Body).Decode(&e)
			if resp.StatusCode != c.status || e.Error.Code != c.code || e.Error.Message == "" {
				t.Errorf("status %d %+v, want %d %s", resp.StatusCode, e.Error, c.status, c.code)
			}
		})
	}
}

func TestOverloadIsImmediate(t *testing.T) {
	b := &fakeBackend{reply: "x", block: make(chan struct{}), started: make(chan struct{}, 4)}
	ts := newTest(t, b, func(o *Options) { o.MaxInFlight = 1 })
	done := make(chan int)
	go func() { r := post(t, ts.URL, simple+`}`); r.Body.Close(); done <- r.StatusCode }()
	<-b.started
	start := time.Now()
	r := post(t, ts.URL, simple+`}`)
	r.Body.Close()
	if r.StatusCode != 429 || time.Since(start) > 2*time.Second {
		t.Errorf("second request: %d after %v", r.StatusCode, time.Since(start))
	}
	close(b.block)
	if code := <-done; code != 200 {
		t.Errorf("first request: %d", code)
	}
}

func TestModelsHealthMetrics(t *testing.T) {
	b := &fakeBackend{reply: "x"}
	ts := newTest(t, b, nil)
	get := func(path string) (int, string) {
		r, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		body, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(body)
	}
	if code, body := get("/v1/models"); code != 200 || !strings.Contains(body, `"id":"demo"`) || !strings.Contains(body, `"object":"list"`) {
		t.Errorf("models: %d %s", code, body)
	}
	if code, body := get("/health"); code != 200 || !strings.Contains(body, `"decoders_exact":true`) {
		t.Errorf("health: %d %s", code, body)
	}
	if code, _ := get("/health/ready"); code != 503 {
		t.Errorf("ready without workers: %d", code)
	}
	b.ready = true
	if code, _ := get("/health/ready"); code != 200 {
		t.Errorf("ready: %d", code)
	}
	post(t, ts.URL, simple+`}`).Body.Close()
	if code, body := get("/metrics"); code != 200 || !strings.Contains(body, `mmgate_http_requests_total{route="/v1/chat/completions",status="200"} 1`) {
		t.Errorf("metrics: %d %s", code, body)
	}
	if code, _ := get("/nope"); code != 404 {
		t.Errorf("unknown route: %d", code)
	}
	var buf bytes.Buffer
	_ = buf
}
