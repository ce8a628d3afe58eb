package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/mmgate/mmgate/internal/testutil/procs"
)

var (
	binary   string // the mmgate binary built by TestMain
	modelDir string // the demo model folder
)

const model = "qwen3-vl"

func TestMain(m *testing.M) {
	os.Exit(procs.Main(m, "mmgate-cluster-", func(bin, dir string) { binary, modelDir = bin, dir }))
}

// commonPort is a TCP port free on every one of the loopback addresses
// ips, so that pods on them share one worker port as a Deployment's do.
func commonPort(t *testing.T, ips ...string) int {
	t.Helper()
next:
	for range 20 {
		l, err := net.Listen("tcp", ips[0]+":0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		for _, ip := range ips[1:] {
			l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
			if err != nil {
				continue next
			}
			l.Close()
		}
		return port
	}
	t.Fatal("no port free on every address")
	return 0
}

// podWorker runs a reference worker listening on ip:port (a pod's IP and
// worker port) and waits until it accepts connections.
func podWorker(t *testing.T, ip string, port int, shm string, extra ...string) *procs.Proc {
	t.Helper()
	addr := net.JoinHostPort(ip, strconv.Itoa(port))
	args := append([]string{"worker", "--listen", addr, "--shm-dir", shm, "--model", modelDir, "--log-level", "warn"}, extra...)
	p := procs.Start(t, binary, args...)
	procs.WaitFor(t, p, func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, "worker on "+addr)
	return p
}

// gateway runs `mmgate serve` with extra flags and waits until it answers
// /health (it may have no worker yet); it returns its URL.
func gateway(t *testing.T, shm string, extra ...string) (string, *procs.Proc) {
	t.Helper()
	addr := procs.FreeAddr(t)
	p := procs.Start(t, binary, procs.ServeArgs(addr, shm, append([]string{"--model", modelDir}, extra...)...)...)
	url := "http://" + addr
	procs.WaitFor(t, p, func() bool { return procs.Ready(url + "/health") }, "gateway up")
	return url, p
}

// gw is a gateway under test: its URL, its process (whose stderr holds the
// access log) and an OpenAI client.
type gw struct {
	url string
	p   *procs.Proc
	c   openai.Client
	n   atomic.Int64
}

func newGW(url string, p *procs.Proc) *gw {
	return &gw{url: url, p: p, c: openai.NewClient(option.WithBaseURL(url+"/v1/"), option.WithAPIKey("unused"), option.WithMaxRetries(0))}
}

// rid is a fresh request id.
func (g *gw) rid(prefix string) string { return fmt.Sprintf("%s-%d", prefix, g.n.Add(1)) }

// chat sends a chat request with request id rid and returns the answer.
func (g *gw) chat(t *testing.T, rid string, p openai.ChatCompletionNewParams) (*openai.ChatCompletion, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return g.c.Chat.Completions.New(ctx, p, option.WithHeader("X-Request-Id", rid))
}

// text sends a short text request and returns the URL of the worker that
// served it (the test fails when it did not succeed).
func (g *gw) text(t *testing.T, prefix string) string {
	t.Helper()
	rid := g.rid(prefix)
	if _, err := g.chat(t, rid, textParams("Hello there", 4)); err != nil {
		t.Fatalf("request %s: %v", rid, err)
	}
	return g.servedBy(t, rid)
}

func textParams(msg string, maxTokens int64) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: model, MaxTokens: openai.Int(maxTokens),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(msg)}}
}

// status is the HTTP status and error code of a failed request.
func status(err error) (int, string) {
	if err == nil {
		return http.StatusOK, ""
	}
	var e *openai.Error
	if errors.As(err, &e) {
		return e.StatusCode, e.Code
	}
	return 0, err.Error()
}

var accessLine = regexp.MustCompile(`msg=access request_id=(\S+) .*?status=(\d+)(?: .*? worker=(\S+))?`)

// servedBy waits for the access-log line of request rid and returns the
// worker it names ("" when it names none).
func (g *gw) servedBy(t *testing.T, rid string) string {
	t.Helper()
	var worker string
	procs.WaitFor(t, g.p, func() bool {
		for _, line := range strings.Split(g.p.Stderr.String(), "\n") {
			if m := accessLine.FindStringSubmatch(line); m != nil && m[1] == rid {
				worker = m[3]
				return true
			}
		}
		return false
	}, "access line of "+rid)
	return worker
}

// ready is the gateway's /health/ready status code.
func (g *gw) ready() int {
	r, err := http.Get(g.url + "/health/ready")
	if err != nil {
		return 0
	}
	r.Body.Close()
	return r.StatusCode
}

// eventually polls cond every 50 ms for up to within.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	t0 := time.Now()
	for !cond() {
		if time.Since(t0) > within {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(t0)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
