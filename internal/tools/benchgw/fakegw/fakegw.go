// Package fakegw is a stand-in for the mmgate gateway in tests of the load
// generator: an http.Handler serving POST /v1/chat/completions (streaming,
// with replies shaped like the reference worker's) and GET /metrics (the
// counters and stage histograms the load generator reads).
//
// It checks nothing about the media beyond counting image parts; it is not a
// model of the gateway's performance. A Gateway is safe for concurrent use.
package fakegw

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Options shapes the fake's behaviour. Zero values mean: no delay, every
// request succeeds, tensors go via shm.
type Options struct {
	// ImageDelay is how long an image request waits before its first token.
	ImageDelay time.Duration
	// TextDelay is how long a text-only request waits before its first token.
	TextDelay time.Duration
	// Fail, when it returns a status other than 0 or 200 for the n-th image
	// request (0-based, in arrival order), answers that status with an
	// OpenAI error body instead.
	Fail func(n int) int
	// StreamError, when it returns true for the n-th image request, sends an
	// error event in the stream after the first chunk.
	StreamError func(n int) bool
	// Inline, when it returns true for the n-th image request, reports the
	// tensor as sent inline.
	Inline func(n int) bool
}

// Request is what the fake recorded of one chat request.
type Request struct {
	Images    []string // the image_url URLs, in order
	Text      string   // the text parts joined
	Stream    bool
	MaxTokens int
	Model     string
}

// Gateway is the fake. Use it as an http.Handler.
type Gateway struct {
	opts Options
	mux  *http.ServeMux

	mu       sync.Mutex
	requests []Request
	nImage   int
	tensors  map[string]float64 // path -> count
	bytes    map[string]float64
	stageSum map[string]float64
	stageCnt map[string]float64
}

// New returns a fake gateway.
func New(opts Options) *Gateway {
	g := &Gateway{opts: opts, mux: http.NewServeMux(),
		tensors: map[string]float64{}, bytes: map[string]float64{},
		stageSum: map[string]float64{}, stageCnt: map[string]float64{}}
	g.mux.HandleFunc("POST /v1/chat/completions", g.chat)
	g.mux.HandleFunc("GET /metrics", g.metrics)
	g.mux.HandleFunc("GET /health/ready", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, `{"status":"ready"}`)
	})
	return g
}

func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) { g.mux.ServeHTTP(w, r) }

// Requests returns a copy of the chat requests received, in arrival order.
func (g *Gateway) Requests() []Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Request(nil), g.requests...)
}

type chatRequest struct {
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	Stream    bool   `json:"stream"`
	Messages  []struct {
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type part struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

func (g *Gateway) chat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	rec, err := record(req)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	g.mu.Lock()
	g.requests = append(g.requests, rec)
	n := -1
	if len(rec.Images) > 0 {
		n = g.nImage
		g.nImage++
	}
	g.mu.Unlock()

	delay := g.opts.TextDelay
	path := "shm"
	if n >= 0 {
		delay = g.opts.ImageDelay
		if g.opts.Fail != nil {
			if st := g.opts.Fail(n); st != 0 && st != http.StatusOK {
				code := map[int]string{429: "overloaded", 413: "too_large", 422: "unprocessable_media", 502: "worker_error"}[st]
				writeError(w, st, code, fmt.Sprintf("request %d refused", n))
				return
			}
		}
		if g.opts.Inline != nil && g.opts.Inline(n) {
			path = "inline"
		}
	}
	select {
	case <-time.After(delay):
	case <-r.Context().Done():
		return
	}
	reply := g.answer(len(rec.Images), path)
	if !req.Stream {
		writeJSON(w, http.StatusOK, map[string]any{"object": "chat.completion",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}}})
		return
	}
	g.stream(w, req.Model, reply, n >= 0 && g.opts.StreamError != nil && g.opts.StreamError(n))
}

// record is what a request asked for: its text and image URLs.
func record(req chatRequest) (Request, error) {
	rec := Request{Stream: req.Stream, MaxTokens: req.MaxTokens, Model: req.Model}
	for _, m := range req.Messages {
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			rec.Text += s
			continue
		}
		var parts []part
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return Request{}, err
		}
		for _, p := range parts {
			switch p.Type {
			case "text":
				rec.Text += p.Text
			case "image_url":
				rec.Images = append(rec.Images, p.ImageURL.URL)
			}
		}
	}
	return rec, nil
}

// answer is the reference worker's reply to a request with images images
// sent through path, counted in the metrics.
func (g *Gateway) answer(images int, path string) string {
	var reply strings.Builder
	fmt.Fprintf(&reply, "prompt: %d tokens, crc32c 0000abcd\n", 20+images*1200)
	for i := range images {
		fmt.Fprintf(&reply, "image %d: grid 1x60x80, bfloat16 via %s, crc32c 1a2b3c%02x\n", i+1, path, i)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for range images {
		g.tensors[path]++
		g.bytes[path] += 14745600
		g.stage("decode", 0.010)
		g.stage("normalize_patchify", 0.006)
	}
	g.stage("tokenize", 0.0002)
	g.stage("generate", 0.001)
	return reply.String()
}

// stream sends text as SSE chunks; with fail, an error event after the
// first content chunk instead of the rest.
func (g *Gateway) stream(w http.ResponseWriter, model, text string, fail bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	delta := func(d map[string]any, finish any) map[string]any {
		return map[string]any{"object": "chat.completion.chunk", "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}}
	}
	send(delta(map[string]any{"role": "assistant", "content": ""}, nil))
	for i, tok := range splitTokens(text) {
		if i == 1 && fail {
			send(map[string]any{"error": map[string]any{"message": "worker went away", "type": "worker_error", "code": "worker_error", "param": nil}})
			fmt.Fprint(w, "data: [DONE]\n\n")
			return
		}
		send(delta(map[string]any{"content": tok}, nil))
	}
	send(delta(map[string]any{}, "stop"))
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// splitTokens cuts text into words and the spaces before them, as a
// tokenizer's stream would.
func splitTokens(s string) []string {
	var out []string
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\n' || s[i-1] == '\n' {
			out = append(out, s[start:i])
			start = i
		}
	}
	return append(out, s[start:])
}

// stage records one observation; g.mu is held.
func (g *Gateway) stage(name string, seconds float64) {
	g.stageSum[name] += seconds
	g.stageCnt[name]++
}

func (g *Gateway) metrics(w http.ResponseWriter, _ *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprintln(w, "# HELP mmgate_mm_tensors_total Tensors sent to workers.")
	fmt.Fprintln(w, "# TYPE mmgate_mm_tensors_total counter")
	for _, p := range sortedKeys(g.tensors) {
		fmt.Fprintf(w, "mmgate_mm_tensors_total{modality=\"image\",path=%q,runtime=\"mmgate-reference\"} %g\n", p, g.tensors[p])
	}
	for _, p := range sortedKeys(g.bytes) {
		fmt.Fprintf(w, "mmgate_mm_tensor_bytes_total{modality=\"image\",path=%q,runtime=\"mmgate-reference\"} %g\n", p, g.bytes[p])
	}
	fmt.Fprintln(w, "# TYPE mmgate_stage_duration_seconds histogram")
	for _, s := range sortedKeys(g.stageCnt) {
		fmt.Fprintf(w, "mmgate_stage_duration_seconds_bucket{stage=%q,le=\"+Inf\"} %g\n", s, g.stageCnt[s])
		fmt.Fprintf(w, "mmgate_stage_duration_seconds_sum{stage=%q} %g\n", s, g.stageSum[s])
		fmt.Fprintf(w, "mmgate_stage_duration_seconds_count{stage=%q} %g\n", s, g.stageCnt[s])
	}
	misses := 0.0
	for _, n := range g.tensors {
		misses += n
	}
	fmt.Fprintf(w, "mmgate_tensor_cache_hits_total 0\nmmgate_tensor_cache_misses_total %g\n", misses)
}

func sortedKeys(m map[string]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": code, "code": code, "param": nil}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
