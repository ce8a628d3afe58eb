package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/internal/reqlog"
	"github.com/mmgate/mmgate/openai"
)

// Completion makes fakeBackend a Completer: the same words as Chat, with a
// logprob per word when asked.
func (b *fakeBackend) Completion(ctx context.Context, req *openai.CompletionRequest, id string) (openai.Generation, error) {
	g, err := b.Chat(ctx, &openai.ChatRequest{Params: *req.Params}, id)
	if err != nil {
		return nil, err
	}
	if req.Logprobs != nil {
		fg := g.(*fakeGen)
		for i := range fg.events {
			w := fg.events[i].Text
			lp := openai.Logprob{Token: w, Logprob: -0.5}
			for k := 0; k < *req.Logprobs; k++ {
				lp.TopLogprobs = append(lp.TopLogprobs, openai.TopLogprob{Token: w + strings.Repeat("!", k), Logprob: -0.5 - float64(k)})
			}
			fg.events[i].Logprobs = []openai.Logprob{lp}
		}
	}
	return g, nil
}

// logBackend logs through the request-scoped logger.
type logBackend struct{ fakeBackend }

func (b *logBackend) Chat(ctx context.Context, req *openai.ChatRequest, id string) (openai.Generation, error) {
	reqlog.From(ctx, nil).Info("backend work")
	return b.fakeBackend.Chat(ctx, req, id)
}

func postPath(t *testing.T, url, path, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", "c1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

type completionOut struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Index        int     `json:"index"`
		Text         string  `json:"text"`
		FinishReason *string `json:"finish_reason"`
		Logprobs     *struct {
			Tokens        []string             `json:"tokens"`
			TokenLogprobs []float64            `json:"token_logprobs"`
			TopLogprobs   []map[string]float64 `json:"top_logprobs"`
			TextOffset    []int                `json:"text_offset"`
		} `json:"logprobs"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

func TestCompletionWhole(t *testing.T) {
	ts := newTest(t, &fakeBackend{reply: "hello there"}, nil)
	resp := postPath(t, ts.URL, "/v1/completions", `{"model":"demo","prompt":"say","n":2,"logprobs":2}`)
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var got completionOut
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Object != "text_completion" || got.ID != "cmpl-c1" || got.Model != "demo" || len(got.Choices) != 2 {
		t.Fatalf("%+v", got)
	}
	for i, c := range got.Choices {
		if c.Index != i || c.Text != "hello there " || c.FinishReason == nil || *c.FinishReason != "stop" || c.Logprobs == nil {
			t.Fatalf("choice %d: %+v", i, c)
		}
		lp := c.Logprobs
		if strings.Join(lp.Tokens, "|") != "hello |there " || len(lp.TokenLogprobs) != 2 || lp.TokenLogprobs[0] != -0.5 {
			t.Errorf("tokens %q %v", lp.Tokens, lp.TokenLogprobs)
		}
		if len(lp.TextOffset) != 2 || lp.TextOffset[0] != 0 || lp.TextOffset[1] != 6 {
			t.Errorf("text_offset %v", lp.TextOffset)
		}
		if len(lp.TopLogprobs) != 2 || len(lp.TopLogprobs[1]) != 2 || lp.TopLogprobs[1]["there !"] != -1.5 {
			t.Errorf("top_logprobs %v", lp.TopLogprobs)
		}
	}
	if got.Usage == nil || got.Usage.PromptTokens != 10 || got.Usage.CompletionTokens != 4 || got.Usage.TotalTokens != 14 {
		t.Errorf("usage %+v", got.Usage)
	}
}

func TestCompletionStream(t *testing.T) {
	ts := newTest(t, &fakeBackend{reply: "a b c"}, nil)
	resp := postPath(t, ts.URL, "/v1/completions", `{"model":"demo","prompt":[1,2,3],"stream":true,"stream_options":{"include_usage":true},"logprobs":0}`)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := readSSE(t, resp.Body)
	if events[len(events)-1] != "[DONE]" {
		t.Fatalf("last event %q", events[len(events)-1])
	}
	var text strings.Builder
	var offsets []int
	finish, usage := "", 0
	for _, e := range events[:len(events)-1] {
		var c completionOut
		if err := json.Unmarshal([]byte(e), &c); err != nil || c.Object != "text_completion" || c.ID != "cmpl-c1" {
			t.Fatalf("chunk %q: %v", e, err)
		}
		if c.Choices == nil {
			t.Fatalf("choices must be a list: %s", e)
		}
		for _, ch := range c.Choices {
			text.WriteString(ch.Text)
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
			if ch.Logprobs != nil {
				offsets = append(offsets, ch.Logprobs.TextOffset...)
			}
		}
		if c.Usage != nil {
			if len(c.Choices) != 0 {
				t.Errorf("usage chunk with choices: %s", e)
			}
			usage = c.Usage.TotalTokens
		}
	}
	if text.String() != "a b c " || finish != "stop" || usage != 13 {
		t.Errorf("text %q finish %q usage %d", text.String(), finish, usage)
	}
	if len(offsets) != 3 || offsets[0] != 0 || offsets[1] != 2 || offsets[2] != 4 {
		t.Errorf("text offsets %v", offsets)
	}
}

func TestCompletionErrors(t *testing.T) {
	ts := newTest(t, &fakeBackend{reply: "x"}, nil)
	for _, body := range []string{`{"model":"demo","prompt":["a","b"]}`, `{"model":"demo","prompt":"x","echo":true}`} {
		resp := postPath(t, ts.URL, "/v1/completions", body)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(b), `"invalid_request_error"`) {
			t.Errorf("%s: %d %s", body, resp.StatusCode, b)
		}
	}
	// A backend without completions: 404.
	ts2 := newTest(t, chatOnly{&fakeBackend{reply: "x"}}, nil)
	resp := postPath(t, ts2.URL, "/v1/completions", `{"prompt":"x"}`)
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("chat-only backend: %d", resp.StatusCode)
	}
}

// chatOnly hides fakeBackend's Completion method.
type chatOnly struct{ b *fakeBackend }

func (c chatOnly) Chat(ctx context.Context, req *openai.ChatRequest, id string) (openai.Generation, error) {
	return c.b.Chat(ctx, req, id)
}
func (c chatOnly) Models() []openai.Model { return c.b.Models() }
func (c chatOnly) Ready() bool            { return c.b.Ready() }
func (c chatOnly) Health() map[string]any { return c.b.Health() }
