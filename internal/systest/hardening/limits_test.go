package hardening

import (
	"context"
	"testing"
	"time"
)

// TestLogprobsLimits: over-large logprob requests on both endpoints are
// refused at once, a long generation with stop strings is fast, and the
// gateway's memory does not move.
func TestLogprobsLimits(t *testing.T) {
	shm := shmDir(t)
	url, gw := startGateway(t, shm, "--embedded-worker")
	healthy(t, url)
	rss := gauge(t, url, "process_resident_memory_bytes")
	for _, c := range []struct{ path, body string }{
		{"/v1/chat/completions", `{"model":"qwen3-vl","max_tokens":8,"logprobs":true,"top_logprobs":1000000000,"messages":[{"role":"user","content":"hi"}]}`},
		{"/v1/chat/completions", `{"model":"qwen3-vl","max_tokens":8,"stream":true,"logprobs":true,"top_logprobs":2147483647,"messages":[{"role":"user","content":"hi"}]}`},
		{"/v1/completions", `{"model":"qwen3-vl","max_tokens":8,"logprobs":1000000000,"prompt":"hi"}`},
		{"/v1/completions", `{"model":"qwen3-vl","max_tokens":8,"logprobs":2147483647,"prompt":"hi","stream":true}`},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		start := time.Now()
		r, err := post(ctx, url, c.path, []byte(c.body))
		cancel()
		if err != nil {
			t.Fatalf("%s %s: %v", c.path, c.body, err)
		}
		if r.status != 400 || r.code != "invalid_request_error" || time.Since(start) > 2*time.Second {
			t.Errorf("%s %s: got %v after %v, want 400 invalid_request_error at once", c.path, c.body, r, time.Since(start))
		}
	}
	// A long generation with stop strings stays linear in its length (the
	// reference worker once decoded its whole output at every token: about
	// 90 s of CPU for these 200000 tokens).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	r, err := post(ctx, url, "/v1/chat/completions", []byte(`{"model":"qwen3-vl","max_tokens":200000,"ignore_eos":true,"stop":["zzzz","never"],"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil || r.status != 200 || time.Since(start) > 10*time.Second {
		t.Errorf("200000 tokens with stop strings: %v %v after %v", err, r.status, time.Since(start))
	}
	if after := gauge(t, url, "process_resident_memory_bytes"); after > rss+256<<20 {
		t.Errorf("RSS grew from %.0f to %.0f MiB", rss/(1<<20), after/(1<<20))
	}
	if !gw.Alive() {
		t.Fatal("gateway died")
	}
	healthy(t, url)
}
