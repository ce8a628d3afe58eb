package render

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// renderClient calls a render endpoint the way llm-d's vLLM HTTP token
// producer does (llm-d-router, pkg/epp/framework/plugins/requestcontrol/
// dataproducer/tokenizer/vllm_http.go): one HTTP/1.1 transport with HTTP/2
// off (vLLM has none) and 16 idle connections kept for 90 s, the inbound
// body re-sent with max_tokens capped at 1 (its prefillOnly option), then
// "return_mm_kwargs": false spliced before the closing brace (its
// omitMMKwargs default), and the client's Authorization header forwarded.
type renderClient struct {
	base   string
	auth   string // forwarded Authorization ("" for none)
	client *http.Client
	// reused and fresh count connections taken from the pool and dialled.
	reused, fresh atomic.Int64
}

func newRenderClient(base, auth string) *renderClient {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 0
	t.MaxIdleConnsPerHost = 16
	t.IdleConnTimeout = 90 * time.Second
	t.ForceAttemptHTTP2 = false
	t.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	return &renderClient{base: base, auth: auth, client: &http.Client{Transport: t, Timeout: 60 * time.Second}}
}

// statusError is a non-2xx answer.
type statusError struct {
	Status int
	Body   []byte
}

func (e *statusError) Error() string { return fmt.Sprintf("status %d: %s", e.Status, e.Body) }

// render posts body to path as the token producer does and decodes the
// answer into out.
func (c *renderClient) render(ctx context.Context, path string, body []byte, out any) error {
	body, err := prefillOnly(body)
	if err != nil {
		return err
	}
	if body, err = omitMMKwargs(body); err != nil {
		return err
	}
	return c.post(ctx, path, body, out)
}

// post sends body unchanged.
func (c *renderClient) post(ctx context.Context, path string, body []byte, out any) error {
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		if i.Reused {
			c.reused.Add(1)
		} else {
			c.fresh.Add(1)
		}
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.ProtoMajor != 1 {
		return fmt.Errorf("answered over %s, want HTTP/1.1", resp.Proto)
	}
	if resp.StatusCode/100 != 2 {
		return &statusError{resp.StatusCode, b}
	}
	return json.Unmarshal(b, out)
}

// prefillOnly is the render copy's output budget: max_tokens 1,
// max_completion_tokens 1 and min_tokens 0 where present, the rest of the
// envelope re-serialized with nested values kept as sent; a body with a
// truncate_prompt_tokens keeps its budget.
func prefillOnly(body []byte) ([]byte, error) {
	var env map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	if v, ok := env["truncate_prompt_tokens"]; ok && string(bytes.TrimSpace(v)) != "null" {
		return body, nil
	}
	env["max_tokens"] = json.RawMessage("1")
	if _, ok := env["max_completion_tokens"]; ok {
		env["max_completion_tokens"] = json.RawMessage("1")
	}
	if _, ok := env["min_tokens"]; ok {
		env["min_tokens"] = json.RawMessage("0")
	}
	return json.Marshal(env)
}

// omitMMKwargs writes "return_mm_kwargs":false just before the object's
// closing brace, without decoding it: a field already there stays, so the
// server must keep the last of duplicate keys.
func omitMMKwargs(body []byte) ([]byte, error) {
	end := bytes.LastIndexByte(body, '}')
	if end < 0 || len(bytes.TrimSpace(body[end+1:])) != 0 {
		return nil, errors.New("not a JSON object")
	}
	head := bytes.TrimSpace(body[:end])
	if len(head) == 0 || head[0] != '{' {
		return nil, errors.New("not a JSON object")
	}
	out := append([]byte(nil), body[:end]...)
	if head[len(head)-1] != '{' {
		out = append(out, ',')
	}
	out = append(out, `"return_mm_kwargs":false`...)
	return append(out, body[end:]...), nil
}
