package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/testutil/jsontest"
	"github.com/mmgate/mmgate/internal/tools/benchgw/fakegw"
)

// writeBenchImages writes n distinct w×h JPEGs into a new directory.
func writeBenchImages(t *testing.T, n, w, h int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				img.Set(x, y, color.RGBA{uint8(x*255/w + i*29), uint8(y * 255 / h), uint8((x + y + i*53) % 256), 255})
			}
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("img%03d.jpg", i)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runBenchGatewayArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv(asMainEnv, "1") // the probe process is this binary run as mmgate
	var out, errb bytes.Buffer
	code := runBenchGateway(context.Background(), &stdio{in: strings.NewReader(""), out: &out, err: &errb}, args)
	return code, out.String(), errb.String()
}

// checkNoNull fails when a JSON document has a null anywhere or a key
// that is not snake_case.
func checkNoNull(t *testing.T, v any, path string) {
	t.Helper()
	jsontest.CheckConventions(t, v, path)
}

func TestBenchGatewayFake(t *testing.T) {
	fake := fakegw.New(fakegw.Options{
		ImageDelay: 5 * time.Millisecond,
		Fail: func(n int) int {
			if n == 2 {
				return http.StatusTooManyRequests
			}
			return 0
		},
	})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	dir := writeBenchImages(t, 3, 64, 48)

	code, out, errs := runBenchGatewayArgs(t, "--url", srv.URL, "--images", dir, "--requests", "6", "--concurrency", "2", "--max-tokens", "40", "--json")
	if code != 1 {
		t.Errorf("exit %d with one refused request, want 1; stderr:\n%s", code, errs)
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("want one JSON line, got:\n%s", out)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	checkNoNull(t, doc, "$")
	var rep struct {
		ImagesPerSecond float64 `json:"images_per_second"`
		Image           struct {
			Sent, OK, Failed int
		} `json:"image"`
		Errors []struct {
			Kind   string `json:"kind"`
			Status int    `json:"status"`
			Code   string `json:"code"`
			Count  int    `json:"count"`
		} `json:"errors"`
		Transport struct {
			ReplyShm int `json:"reply_shm"`
		} `json:"transport"`
		ProbeProcess bool   `json:"probe_process"`
		ProbeError   string `json:"probe_error"`
	}
	json.Unmarshal([]byte(out), &rep)
	if rep.Image.Sent != 6 || rep.Image.OK != 5 || rep.ImagesPerSecond <= 0 || rep.Transport.ReplyShm != 5 {
		t.Errorf("report %+v", rep)
	}
	// The text probes came from a process of their own (this binary as
	// `mmgate bench probe`), its warm-up included.
	probeTexts := 0
	for _, q := range fake.Requests() {
		if len(q.Images) == 0 {
			probeTexts++
		}
	}
	if !rep.ProbeProcess || rep.ProbeError != "" || probeTexts < 3 {
		t.Errorf("probe process %v, error %q, %d text requests", rep.ProbeProcess, rep.ProbeError, probeTexts)
	}
	if len(rep.Errors) != 1 || rep.Errors[0].Status != 429 || rep.Errors[0].Code != "overloaded" || rep.Errors[0].Count != 1 {
		t.Errorf("errors %+v", rep.Errors)
	}
	for _, q := range fake.Requests() {
		if q.MaxTokens != 40 {
			t.Errorf("max_tokens %d, want 40", q.MaxTokens)
		}
	}

	code, out, errs = runBenchGatewayArgs(t, "--url", srv.URL, "--images", dir, "--requests", "3", "--concurrency", "3", "--no-probe")
	if code != 0 {
		t.Errorf("exit %d, stderr:\n%s", code, errs)
	}
	for _, want := range []string{"images/s", "p50 ms", "transport (replies)", "decode"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchGatewayUsage(t *testing.T) {
	dir := writeBenchImages(t, 1, 16, 16)
	empty := t.TempDir()
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-h"}, 0, "usage: mmgate bench gateway"},
		{[]string{"--url", "http://127.0.0.1:1"}, 2, "--images DIR is required"},
		{[]string{"--images", dir, "--url", "http://192.0.2.1:8080"}, 2, "loopback"},
		{[]string{"--images", dir, "--concurrency", "0"}, 2, "--concurrency"},
		{[]string{"--images", dir, "--requests", "-1"}, 2, "--requests"},
		{[]string{"--images", dir, "--duration", "0s"}, 2, "--duration"},
		{[]string{"--images", empty}, 2, "no image files"},
		{[]string{"--images", filepath.Join(empty, "nope")}, 2, "no such file"},
		{[]string{"--images", dir, "extra"}, 2, "unexpected argument"},
		{[]string{"--bogus"}, 2, "flag provided but not defined"},
	}
	for _, tc := range tests {
		code, _, errs := runBenchGatewayArgs(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
}

// TestBenchGatewayEmbedded runs the real gateway (`serve --embedded-worker`)
// in this process and loads it. With MMGATE_BENCH_GATEWAY_IMAGES=DIR (and
// optionally MMGATE_BENCH_GATEWAY_REQUESTS, _CONCURRENCY) it loads that
// directory instead of a few small generated pictures, so that
//
//	go test -run TestBenchGatewayEmbedded -cpuprofile cpu.prof ./cmd/mmgate
//
// profiles gateway, worker and client together.
func TestBenchGatewayEmbedded(t *testing.T) {
	dir := os.Getenv("MMGATE_BENCH_GATEWAY_IMAGES")
	requests, concurrency := 12, 4
	if dir == "" {
		dir = writeBenchImages(t, 6, 320, 240)
	}
	if v, err := strconv.Atoi(os.Getenv("MMGATE_BENCH_GATEWAY_REQUESTS")); err == nil {
		requests = v
	}
	if v, err := strconv.Atoi(os.Getenv("MMGATE_BENCH_GATEWAY_CONCURRENCY")); err == nil {
		concurrency = v
	}
	url := startEmbeddedGateway(t).URL

	code, out, errs := runBenchGatewayArgs(t, "--url", url, "--images", dir, "--requests", strconv.Itoa(requests),
		"--concurrency", strconv.Itoa(concurrency), "--json")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	t.Logf("%s", out)
	var rep struct {
		Image struct {
			OK      int `json:"ok"`
			Latency struct {
				P50 float64 `json:"p50"`
			} `json:"latency_ms"`
		} `json:"image"`
		TextProbe struct {
			OK int `json:"ok"`
		} `json:"text_probe"`
		Transport struct {
			ReplyShm    int `json:"reply_shm"`
			ReplyInline int `json:"reply_inline"`
			Metrics     []struct {
				Path    string  `json:"path"`
				Tensors float64 `json:"tensors"`
			} `json:"metrics"`
		} `json:"transport"`
		Stages []struct {
			Stage string  `json:"stage"`
			Count float64 `json:"count"`
		} `json:"stages"`
		Server struct {
			TensorCacheHits float64 `json:"tensor_cache_hits"`
		} `json:"server"`
		MetricsError string `json:"metrics_error"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Image.OK != requests || rep.Image.Latency.P50 <= 0 {
		t.Errorf("image requests ok %d of %d, p50 %v", rep.Image.OK, requests, rep.Image.Latency.P50)
	}
	if rep.MetricsError != "" {
		t.Fatalf("metrics: %s", rep.MetricsError)
	}
	// Both views of the transport mix agree: one tensor per image request.
	byPath := map[string]int{}
	for _, m := range rep.Transport.Metrics {
		byPath[m.Path] += int(m.Tensors)
	}
	if rep.Transport.ReplyShm+rep.Transport.ReplyInline != requests ||
		byPath["shm"] != rep.Transport.ReplyShm || byPath["inline"] != rep.Transport.ReplyInline {
		t.Errorf("transport: replies shm %d inline %d; metrics %v", rep.Transport.ReplyShm, rep.Transport.ReplyInline, byPath)
	}
	stages := map[string]float64{}
	for _, s := range rep.Stages {
		stages[s.Stage] = s.Count
	}
	// Repeated pictures come from the tensor cache without a decode.
	if stages["fetch"] != float64(requests) || stages["decode"]+rep.Server.TensorCacheHits != float64(requests) {
		t.Errorf("stage counts %v with %v cache hits, want %d fetches and decodes + hits", stages, rep.Server.TensorCacheHits, requests)
	}
}
