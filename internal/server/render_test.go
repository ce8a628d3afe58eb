package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/openai"
)

// renderBackend is fakeBackend with the render API: it echoes what the
// routes handed it.
type renderBackend struct {
	fakeBackend
	err error
}

func (b *renderBackend) RenderChat(_ context.Context, req *openai.ChatRequest, id string) (*openai.GenerateRequest, error) {
	if b.err != nil {
		return nil, b.err
	}
	return &openai.GenerateRequest{RequestID: "chatcmpl-" + id, TokenIDs: []uint32{uint32(len(req.Messages))}, Model: &req.Model}, nil
}

func (b *renderBackend) RenderCompletions(_ context.Context, reqs []*openai.CompletionRequest, id string) ([]*openai.GenerateRequest, error) {
	out := make([]*openai.GenerateRequest, len(reqs))
	for i, r := range reqs {
		out[i] = &openai.GenerateRequest{RequestID: fmt.Sprintf("cmpl-%s-%d", id, i), TokenIDs: r.PromptIDs}
	}
	return out, nil
}

func (b *renderBackend) Tokenize(_ context.Context, req *openai.TokenizeRequest) (*openai.TokenizeResponse, error) {
	return &openai.TokenizeResponse{Count: len(req.Prompt), MaxModelLen: 7, Tokens: []uint32{1}}, nil
}

func (b *renderBackend) Detokenize(_ context.Context, req *openai.DetokenizeRequest) (*openai.DetokenizeResponse, error) {
	return &openai.DetokenizeResponse{Prompt: fmt.Sprint(req.Tokens)}, nil
}

func postKey(t *testing.T, url, key, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRenderRoutes: the four routes reach the backend's render API with
// the request id, behind the API keys; completions always answer a list;
// bad bodies are 400s and backend errors map as chat's do.
func TestRenderRoutes(t *testing.T) {
	b := &renderBackend{}
	s, err := New(Options{Backend: b, APIKeys: []string{"k"}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	for _, c := range []struct {
		path, body, want string
	}{
		{"/v1/chat/completions/render", `{"model": "m", "messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}`, `"request_id":"chatcmpl-`},
		{"/v1/completions/render", `{"prompt": [[3], [4, 5]]}`, `[{"request_id":"cmpl-`},
		{"/v1/completions/render", `{"prompt": "x"}`, `[{"request_id":"cmpl-`},
		{"/tokenize", `{"prompt": "abc"}`, `{"count":3,"max_model_len":7,"tokens":[1],"token_strs":null}`},
		{"/detokenize", `{"tokens": [4, 2]}`, `{"prompt":"[4 2]"}`},
	} {
		code, body := postKey(t, ts.URL+c.path, "k", c.body)
		if code != 200 || !strings.Contains(body, c.want) {
			t.Errorf("%s %s: %d %s", c.path, c.body, code, body)
		}
		if code, _ := postKey(t, ts.URL+c.path, "", c.body); code != 401 {
			t.Errorf("%s without a key: %d", c.path, code)
		}
		if code, body := postKey(t, ts.URL+c.path, "k", `{"prompt": `); code != 400 || !strings.Contains(body, "invalid_request_error") {
			t.Errorf("%s bad body: %d %s", c.path, code, body)
		}
	}
	var list []openai.GenerateRequest
	_, body := postKey(t, ts.URL+"/v1/completions/render", "k", `{"prompt": [[3], [4, 5]]}`)
	if err := json.Unmarshal([]byte(body), &list); err != nil || len(list) != 2 || len(list[1].TokenIDs) != 2 || list[0].RequestID == list[1].RequestID {
		t.Errorf("completions render %s", body)
	}
	b.err = fmt.Errorf("pipeline: model %q: %w", "m", engine.ErrModelNotFound)
	if code, body := postKey(t, ts.URL+"/v1/chat/completions/render", "k", `{"model": "m", "messages": [{"role": "user", "content": "a"}]}`); code != 404 || !strings.Contains(body, `model_not_found`) {
		t.Errorf("not found: %d %s", code, body)
	}
	// Without the render API the routes are absent.
	plain, _ := New(Options{Backend: &fakeBackend{}})
	ts2 := httptest.NewServer(plain)
	defer ts2.Close()
	if code, body := postKey(t, ts2.URL+"/tokenize", "", `{"prompt": "x"}`); code != 404 || !strings.Contains(body, "render API") {
		t.Errorf("no render API: %d %s", code, body)
	}
}
