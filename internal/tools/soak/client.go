package soak

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// image is one test image with the fingerprint the worker must report.
type image struct {
	dataURL string
	sha     string
}

// job is one request to send.
type job struct {
	text   string
	images []int // indices into the image set
	stream bool
	cancel bool // cancel after the first streamed bytes
}

func (j job) key() string { return fmt.Sprintf("%s|%v", j.text, j.images) }

func (j job) body(imgs []image) []byte {
	parts := []any{}
	for _, i := range j.images {
		parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]any{"url": imgs[i].dataURL}})
	}
	parts = append(parts, map[string]any{"type": "text", "text": j.text})
	req := map[string]any{
		"model":    "qwen3-vl",
		"stream":   j.stream,
		"messages": []any{map[string]any{"role": "user", "content": parts}},
	}
	b, _ := json.Marshal(req)
	return b
}

// outcome is what one request produced.
type outcome struct {
	kind    string // "ok", "cancelled", "clean", "wrong", "unclean"
	detail  string // clean: "status code"; wrong/unclean: a description
	status  int
	latency time.Duration
	image   bool
}

// verifier remembers the first answer to each prompt and checks the rest.
type verifier struct {
	imgs       []image
	itemLine   *regexp.Regexp // an image line: its number and fingerprint
	promptLine *regexp.Regexp
	mu         sync.Mutex
	seen       map[string]string
}

func newVerifier(imgs []image) *verifier {
	return &verifier{
		imgs:       imgs,
		itemLine:   regexp.MustCompile(`image (\d+): grid \d+x\d+x\d+, \w+ via \w+, sha256 ([0-9a-f]{64})`),
		promptLine: regexp.MustCompile(`prompt: \d+ tokens, sha256 [0-9a-f]{64}`),
		seen:       map[string]string{},
	}
}

func (v *verifier) check(j job, text string) string {
	pl := v.promptLine.FindString(text)
	if pl == "" {
		return "no prompt line in " + strconv.Quote(short(text))
	}
	items := v.itemLine.FindAllStringSubmatch(text, -1)
	if len(items) != len(j.images) {
		return fmt.Sprintf("%d image lines for %d images: %q", len(items), len(j.images), short(text))
	}
	for k, m := range items {
		if m[1] != strconv.Itoa(k+1) || m[2] != v.imgs[j.images[k]].sha {
			return fmt.Sprintf("image %d: fingerprint %s, want %s (image #%d)", k+1, m[2], v.imgs[j.images[k]].sha, j.images[k])
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if first, ok := v.seen[j.key()]; !ok {
		v.seen[j.key()] = pl
	} else if first != pl {
		return fmt.Sprintf("prompt fingerprint %q, earlier %q", pl, first)
	}
	return ""
}

func short(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

type apiError struct {
	Error *struct {
		Message string `json:"message"`
		Code    string `json:"code"`
	} `json:"error"`
}

// cleanStatus lists the error statuses a fault may legitimately cause.
var cleanStatus = map[int]bool{400: true, 429: true, 502: true, 503: true, 504: true}

// do sends one request and classifies the outcome.
func do(ctx context.Context, hc *http.Client, url string, j job, v *verifier, timeout time.Duration) outcome {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	o := outcome{image: len(j.images) > 0}
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/chat/completions", bytes.NewReader(j.body(v.imgs)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return outcome{kind: "unclean", detail: "transport: " + err.Error(), image: o.image}
	}
	defer resp.Body.Close()
	o.status = resp.StatusCode
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		o.latency = time.Since(start)
		var e apiError
		if json.Unmarshal(b, &e) != nil || e.Error == nil || e.Error.Code == "" || e.Error.Message == "" {
			o.kind, o.detail = "unclean", fmt.Sprintf("status %d with body %q", resp.StatusCode, short(string(b)))
			return o
		}
		if !cleanStatus[resp.StatusCode] || (resp.StatusCode == 400 && !strings.Contains(e.Error.Message, "reject")) {
			o.kind, o.detail = "unclean", fmt.Sprintf("status %d: %s", resp.StatusCode, e.Error.Message)
			return o
		}
		o.kind, o.detail = "clean", fmt.Sprintf("%d %s", resp.StatusCode, e.Error.Code)
		return o
	}
	var text string
	if j.stream {
		t, errCode, kind, detail := readStream(resp.Body, j.cancel, cancel)
		if kind != "" {
			o.kind, o.detail = kind, detail
			return o
		}
		if errCode != "" {
			o.kind, o.detail = "clean", "200 stream "+errCode
			return o
		}
		text = t
	} else {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			o.kind, o.detail = "unclean", "reading body: "+err.Error()
			return o
		}
		var r struct {
			Choices []struct {
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
			} `json:"choices"`
		}
		if json.Unmarshal(b, &r) != nil || len(r.Choices) != 1 {
			o.kind, o.detail = "unclean", "bad 200 body "+strconv.Quote(short(string(b)))
			return o
		}
		text = r.Choices[0].Message.Content
	}
	o.latency = time.Since(start)
	if msg := v.check(j, text); msg != "" {
		o.kind, o.detail = "wrong", msg
		return o
	}
	o.kind = "ok"
	return o
}

// readStream reads an SSE answer. With cancelAfterFirst it cancels the
// request after the first content bytes and reports "cancelled".
func readStream(body io.Reader, cancelAfterFirst bool, cancel context.CancelFunc) (text, errCode, kind, detail string) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var b strings.Builder
	done := false
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if done {
			return "", "", "unclean", "data after [DONE]"
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var ev struct {
			apiError
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return "", "", "unclean", "bad SSE event " + strconv.Quote(short(data))
		}
		if ev.Error != nil {
			if errCode != "" || ev.Error.Code == "" {
				return "", "", "unclean", "bad error event " + strconv.Quote(short(data))
			}
			errCode = ev.Error.Code
			continue
		}
		if errCode != "" {
			return "", "", "unclean", "content after an error event"
		}
		for _, c := range ev.Choices {
			b.WriteString(c.Delta.Content)
		}
		if cancelAfterFirst && b.Len() > 0 {
			cancel()
			return "", "", "cancelled", ""
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return "", "", "unclean", "stream timed out"
		}
		return "", "", "unclean", "stream: " + err.Error()
	}
	if !done {
		return "", "", "unclean", "stream ended without [DONE]"
	}
	return b.String(), errCode, "", ""
}

// metrics scrapes the gateway's metrics: unlabelled ones by name, labelled
// ones by name{labels} and their sum by name{*}.
func metrics(url string) (map[string]float64, error) {
	r, err := http.Get(url + "/metrics")
	if err != nil {
		return nil, err
	}
	defer r.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(r.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.IndexByte(line, '{'); i > 0 {
			// Labelled series are kept as name{labels} and summed per name.
			if j := strings.LastIndexByte(line, ' '); j > i {
				if v, err := strconv.ParseFloat(line[j+1:], 64); err == nil {
					out[line[:j]] = v
					out[line[:i]+"{*}"] += v
				}
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		if v, err := strconv.ParseFloat(f[1], 64); err == nil {
			out[f[0]] = v
		}
	}
	return out, sc.Err()
}

func dataURL(b []byte) string {
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b)
}
