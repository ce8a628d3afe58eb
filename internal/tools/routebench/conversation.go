package routebench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mmgate/mmgate/internal/tools/benchgw"
)

// turn is what one request of a conversation measured.
type turn struct {
	index   int // 0 for a conversation's first turn
	latency time.Duration
	prompt  int // prompt tokens
	cached  int // of which the worker had cached
	err     error
}

// message is one chat message as sent.
type message = benchgw.Message

// reply is the part of a chat completion the client reads.
type reply struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
		Details      *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// conversation runs one conversation of turns turns about the image at
// imageURL against the gateway at url, each turn sending the whole history.
// It stops at the first failed turn.
func conversation(ctx context.Context, client *http.Client, url, model, image string, turns, maxTokens int) []turn {
	history := []message{{Role: "user", Content: []benchgw.Part{
		{Type: "image_url", ImageURL: &benchgw.ImageURL{URL: image}},
		{Type: "text", Text: "What is in this picture?"},
	}}}
	out := make([]turn, 0, turns)
	for k := range turns {
		t, answer := send(ctx, client, url, model, history, maxTokens)
		t.index = k
		out = append(out, t)
		if t.err != nil {
			break
		}
		history = append(history, message{Role: "assistant", Content: answer},
			message{Role: "user", Content: fmt.Sprintf("Tell me more about it (%d).", k+1)})
	}
	return out
}

// send sends one chat request and returns its measure and the answer.
func send(ctx context.Context, client *http.Client, url, model string, history []message, maxTokens int) (turn, string) {
	body, err := json.Marshal(map[string]any{"model": model, "messages": history, "max_tokens": maxTokens})
	if err != nil {
		return turn{err: err}, ""
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		return turn{err: err}, ""
	}
	req.Header.Set("Content-Type", "application/json")
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return turn{err: err}, ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	t := turn{latency: time.Since(t0)}
	var r reply
	switch {
	case err != nil:
		t.err = err
	case json.Unmarshal(b, &r) != nil:
		t.err = fmt.Errorf("status %d: not JSON: %.100q", resp.StatusCode, b)
	case r.Error != nil || resp.StatusCode != http.StatusOK || len(r.Choices) == 0:
		t.err = fmt.Errorf("status %d: %.200s", resp.StatusCode, b)
	}
	if t.err != nil {
		return t, ""
	}
	t.prompt = r.Usage.PromptTokens
	if r.Usage.Details != nil {
		t.cached = r.Usage.Details.CachedTokens
	}
	return t, r.Choices[0].Message.Content
}
