package hardening

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// loadCorpus reads testdata/corpus/cases.tsv and the bodies it names.
func loadCorpus(t *testing.T) ([]corpusCase, map[string][]byte) {
	t.Helper()
	dir := filepath.Join("testdata", "corpus")
	tsv, err := os.ReadFile(filepath.Join(dir, "cases.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	bodies := map[string][]byte{}
	for _, line := range strings.Split(string(tsv), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 4)
		if len(f) != 4 {
			t.Fatalf("cases.tsv: bad line %q", line)
		}
		st, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatalf("cases.tsv: bad status in %q", line)
		}
		code := f[2]
		if code == "-" {
			code = ""
		}
		b, err := os.ReadFile(filepath.Join(dir, f[0]))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f[0], ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		cases = append(cases, corpusCase{f[0], st, code, f[3]})
		bodies[f[0]] = b
	}
	return cases, bodies
}

// TestCorpus sends every corpus body to one gateway (embedded reference
// worker, 4 MiB body limit) as a plain and as a streaming request, and
// checks the status and error code, that errors come before any streamed
// byte, and that the gateway ends healthy with no goroutines or shm
// segments left behind.
func TestCorpus(t *testing.T) { runCorpus(t, "tokenspeed") }

// TestCorpusVLLM runs the corpus against an embedded worker serving vLLM's
// protocol (one float32 tensor for all of a request's images, each segment
// unlinked after its one read).
func TestCorpusVLLM(t *testing.T) { runCorpus(t, "vllm") }

// runCorpus is TestCorpus with the embedded worker serving protocol.
func runCorpus(t *testing.T, protocol string) {
	cases, bodies := loadCorpus(t)
	if len(cases) < 50 {
		t.Fatalf("only %d corpus cases", len(cases))
	}
	shm := shmDir(t)
	url, gw := startGateway(t, shm, "--embedded-worker", "--embedded-protocol", protocol, "--max-body-bytes", "4194304", "--cache-bytes", "0",
		"--shm-ttl", "1s", "--shm-sweep-interval", "250ms")
	healthy(t, url)
	base := gauge(t, url, "go_goroutines")

	videoSkip := ""
	if r, err := post(context.Background(), url, "/v1/chat/completions", bodies["video_ok_mp4.json"]); err == nil && r.status == 400 && bytes.Contains(r.body, []byte("video not supported")) {
		videoSkip = "the gateway does not accept video parts yet (" + string(bytes.TrimSpace(r.body)) + ")"
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if strings.HasPrefix(c.name, "video_") && videoSkip != "" {
				t.Skip(videoSkip)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			body := bodies[c.name]
			start := time.Now()
			r, err := post(ctx, url, "/v1/chat/completions", body)
			if err != nil {
				t.Fatalf("%s: %v", c.note, err)
			}
			if r.status != c.status || r.code != c.code {
				t.Errorf("%s: got %v, want %d %s", c.note, r, c.status, c.code)
			}
			if c.status != 200 && !strings.Contains(string(r.body), `"message"`) {
				t.Errorf("%s: error without a message: %s", c.note, r.body)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("%s: took %v", c.note, d)
			}
			// The same request streamed: an error found before generation
			// starts is a plain HTTP error, not a 200 stream.
			if sb, ok := withStream(body); ok && c.status != 413 {
				r, err := post(ctx, url, "/v1/chat/completions", sb)
				if err != nil {
					t.Fatalf("stream: %v", err)
				}
				if r.status != c.status || r.code != c.code {
					t.Errorf("%s (stream): got %v, want %d %s", c.note, r, c.status, c.code)
				}
				if c.status == 200 && !bytes.Contains(r.body, []byte("data: [DONE]")) {
					t.Errorf("%s (stream): no [DONE]: %s", c.note, r.body)
				}
			}
		})
	}
	if !gw.Alive() {
		t.Fatal("gateway died")
	}
	healthy(t, url)
	waitFor(t, gw, func() bool { return gauge(t, url, "go_goroutines") <= base+10 }, "goroutines back to the baseline")
	// Segments kept for reuse are removed once idle for a few TTLs; none
	// may outlive that, and none may outlive the gateway.
	waitFor(t, gw, func() bool { e, _ := os.ReadDir(shm); return len(e) == 0 }, "no shm segments left after the janitor interval")
	stop(t, gw)
	if e, _ := os.ReadDir(shm); len(e) != 0 {
		t.Errorf("segments left after shutdown: %v", e)
	}
}

// withStream returns body with "stream": true added, when body is a JSON
// object the gateway would parse.
func withStream(body []byte) ([]byte, bool) {
	s := bytes.TrimSpace(body)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' || bytes.Contains(s, []byte(`"stream"`)) {
		return nil, false
	}
	return append([]byte(`{"stream":true,`), s[1:]...), true
}
