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
	"syscall"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/demomodel"
	"github.com/mmgate/mmgate/internal/proctest"
)

var (
	mmgateBin string // the mmgate binary built by TestMain
	modelDir  string // the demo model folder
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "mmgate-hardening-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	if mmgateBin, err = proctest.Build(tmp); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if modelDir, err = demomodel.Materialize(tmp); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

type proc = proctest.Proc

// stop ends the process with SIGTERM (a graceful shutdown) and waits.
func stop(t testing.TB, p *proc) {
	t.Helper()
	p.Cmd.Process.Signal(syscall.SIGTERM)
	if !p.Wait(20 * time.Second) {
		p.Kill()
		t.Errorf("process did not stop within 20 s of SIGTERM")
	}
}

// start runs the binary with args until the test ends.
func start(t testing.TB, args ...string) *proc {
	t.Helper()
	return proctest.Start(t, mmgateBin, args...)
}

// shmDir is a private directory on the shared-memory tmpfs.
func shmDir(t testing.TB) string { return proctest.ShmDir(t, "mmgate-hardening-") }

func freeAddr(t testing.TB) string { return proctest.FreeAddr(t) }

// startGateway runs `mmgate serve` with the demo model and extra flags and
// waits until it is ready.
func startGateway(t testing.TB, shm string, extra ...string) (string, *proc) {
	t.Helper()
	addr := freeAddr(t)
	args := append([]string{"serve", "--listen", addr, "--shm-dir", shm, "--health-interval", "200ms", "--model", modelDir}, extra...)
	p := start(t, args...)
	url := "http://" + addr
	waitReady(t, p, url)
	return url, p
}

// waitReady waits until the gateway has a healthy worker.
func waitReady(t testing.TB, p *proc, url string) {
	t.Helper()
	waitFor(t, p, func() bool {
		r, err := http.Get(url + "/health/ready")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == 200
	}, "gateway ready")
}

func waitFor(t testing.TB, p *proc, ok func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if p != nil && !p.Alive() {
			t.Fatalf("process exited while waiting for %s:\n%s", what, p.Stderr.String())
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
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
	r, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	for _, m := range metricLine.FindAllStringSubmatch(string(b), -1) {
		if m[1] == name {
			v, _ := strconv.ParseFloat(m[2], 64)
			return v
		}
	}
	t.Fatalf("metric %s missing", name)
	return 0
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
