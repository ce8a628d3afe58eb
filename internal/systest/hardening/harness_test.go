package hardening

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/testutil/procs"
)

var (
	mmgateBin string // the mmgate binary built by TestMain
	modelDir  string // the demo model folder
)

func TestMain(m *testing.M) {
	os.Exit(procs.Main(m, "mmgate-hardening-", func(bin, model string) { mmgateBin, modelDir = bin, model }))
}

// stop ends the process with SIGTERM (a graceful shutdown) and waits.
func stop(t testing.TB, p *procs.Proc) {
	t.Helper()
	if !p.Stop(20 * time.Second) {
		t.Errorf("process did not stop within 20 s of SIGTERM")
	}
}

// shmDir is a private directory on the shared-memory tmpfs.
func shmDir(t testing.TB) string { return procs.ShmDir(t, "mmgate-hardening-") }

// startGateway runs `mmgate serve` with the demo model and extra flags and
// waits until it is ready.
func startGateway(t testing.TB, shm string, extra ...string) (string, *procs.Proc) {
	t.Helper()
	return procs.Gateway(t, mmgateBin, shm, append([]string{"--model", modelDir}, extra...)...)
}

// waitReady waits until the gateway has a healthy worker.
func waitReady(t testing.TB, p *procs.Proc, url string) {
	t.Helper()
	waitFor(t, p, func() bool { return procs.Ready(url + "/health/ready") }, "gateway ready")
}

func waitFor(t testing.TB, p *procs.Proc, ok func() bool, what string) {
	t.Helper()
	procs.WaitFor(t, p, ok, what)
}

// apiResult is one HTTP answer: status, OpenAI error code (if any) and body.
type apiResult struct {
	status int
	code   string
	body   []byte
}

func (r apiResult) String() string {
	b := r.body
	if len(b) > 400 {
		b = append(b[:400:400], "…"...)
	}
	return fmt.Sprintf("%d %s %s", r.status, r.code, b)
}

// post sends body to path and reads the whole answer.
func post(ctx context.Context, url, path string, body []byte) (apiResult, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", url+path, bytes.NewReader(body))
	if err != nil {
		return apiResult{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return apiResult{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	r := apiResult{status: resp.StatusCode, body: b}
	r.code = errorCode(b)
	return r, err
}

// errorCode returns error.code of an OpenAI error body, or of the first SSE
// error event of a stream.
func errorCode(b []byte) string {
	var e struct {
		Error *struct {
			Code string `json:"code"`
			Type string `json:"type"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != nil {
		return e.Error.Code
	}
	for _, line := range strings.Split(string(b), "\n") {
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data:")
		if !ok {
			continue
		}
		if json.Unmarshal([]byte(strings.TrimSpace(data)), &e) == nil && e.Error != nil {
			return e.Error.Code
		}
	}
	return ""
}

var metricLine = regexp.MustCompile(`(?m)^([a-z_]+) ([0-9.e+]+)$`)

// gauge reads an unlabelled metric from the gateway's /metrics.
func gauge(t testing.TB, url, name string) float64 {
	t.Helper()
	v, ok := metric(url, name)
	if !ok {
		t.Fatalf("metric %s missing", name)
	}
	return v
}

// metric reads an unlabelled metric; false when it cannot.
func metric(url, name string) (float64, bool) {
	b, err := procs.Metrics(url)
	if err != nil {
		return 0, false
	}
	for _, m := range metricLine.FindAllStringSubmatch(b, -1) {
		if m[1] == name {
			v, _ := strconv.ParseFloat(m[2], 64)
			return v, true
		}
	}
	return 0, false
}

// healthy checks that the gateway still answers a plain text request.
func healthy(t testing.TB, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := post(ctx, url, "/v1/chat/completions", []byte(`{"model":"qwen3-vl","max_tokens":4,"messages":[{"role":"user","content":"still there?"}]}`))
	if err != nil || r.status != 200 {
		t.Fatalf("gateway unhealthy: %v %v", err, r)
	}
}
