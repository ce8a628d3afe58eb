package hardening

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/testutil/procs"
)

// This file is the hostile-client harness: raw loopback connections that
// misbehave in bounded numbers, an ordinary client on its own source
// address whose latency is measured meanwhile, and the checks that the
// gateway returns to its baseline afterwards.

// ordinarySource is the ordinary client's address: the hostile clients
// use 127.0.0.1, so per-address limits tell them apart.
const ordinarySource = "127.0.0.2"

// textBody is the ordinary client's request.
const textBody = `{"model":"qwen3-vl","max_tokens":4,"messages":[{"role":"user","content":"still there?"}]}`

// sample is one ordinary request: when it was sent, its status (0: a
// transport error) and how long it took.
type sample struct {
	at      time.Time
	status  int
	latency time.Duration
	err     error
}

// prober sends ordinary text requests one after another from its own
// source address until stopped.
type prober struct {
	url    string
	client *http.Client
	stop   chan struct{}
	done   chan struct{}
	mu     sync.Mutex
	got    []sample
}

// newClient is an HTTP client whose connections come from src.
func newClient(src string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4}}
}

// startProber starts an ordinary client sending a request every pause.
func startProber(url string, pause time.Duration) *prober {
	p := &prober{url: url, client: newClient(ordinarySource), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			select {
			case <-p.stop:
				return
			default:
			}
			p.record(p.once())
			select {
			case <-p.stop:
				return
			case <-time.After(pause):
			}
		}
	}()
	return p
}

func (p *prober) once() sample {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := sample{at: time.Now()}
	req, _ := http.NewRequestWithContext(ctx, "POST", p.url+"/v1/chat/completions", strings.NewReader(textBody))
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		s.status = resp.StatusCode
	}
	s.latency, s.err = time.Since(s.at), err
	return s
}

func (p *prober) record(s sample) {
	p.mu.Lock()
	p.got = append(p.got, s)
	p.mu.Unlock()
}

// finish stops the prober and returns its samples.
func (p *prober) finish() []sample {
	close(p.stop)
	<-p.done
	p.client.CloseIdleConnections()
	return p.got
}

// summary describes samples: count, statuses, worst latency.
func summary(ss []sample) string {
	codes := map[int]int{}
	var worst time.Duration
	for _, s := range ss {
		codes[s.status]++
		worst = max(worst, s.latency)
	}
	return fmt.Sprintf("%d requests, statuses %v, slowest %v", len(ss), codes, worst.Round(time.Millisecond))
}

// servedWithin checks that every sample is a 200 within limit.
func servedWithin(t *testing.T, what string, ss []sample, limit time.Duration) {
	t.Helper()
	if len(ss) < 3 {
		t.Errorf("%s: only %d ordinary requests", what, len(ss))
	}
	for _, s := range ss {
		if s.status != 200 || s.latency > limit {
			t.Errorf("%s: an ordinary request got %d (%v) after %v, want 200 within %v", what, s.status, s.err, s.latency, limit)
		}
	}
	t.Logf("%s: ordinary client: %s", what, summary(ss))
}

// baseline is the gateway's state before an attack.
type baseline struct {
	goroutines, rss float64
}

func takeBaseline(t *testing.T, url string) baseline {
	t.Helper()
	healthy(t, url)
	return baseline{goroutines: gauge(t, url, "go_goroutines"), rss: gauge(t, url, "process_resident_memory_bytes")}
}

// backToBaseline waits for the gateway's goroutines to return within 15 of
// the baseline and its shared-memory directory to empty, and checks its RSS
// against the baseline plus slack.
func backToBaseline(t *testing.T, gw *procs.Proc, url, shm string, b baseline, rssSlack float64) {
	t.Helper()
	waitFor(t, gw, func() bool { return gauge(t, url, "go_goroutines") <= b.goroutines+15 }, "goroutines back to the baseline")
	waitFor(t, gw, func() bool { s, _ := procs.Segments(shm); return len(s) == 0 }, "shared memory empty")
	rss := gauge(t, url, "process_resident_memory_bytes")
	if rss > b.rss+rssSlack {
		t.Errorf("RSS %.0f MiB after, %.0f MiB before", rss/(1<<20), b.rss/(1<<20))
	}
	t.Logf("after: goroutines %.0f (baseline %.0f), RSS %.0f MiB (baseline %.0f)",
		gauge(t, url, "go_goroutines"), b.goroutines, rss/(1<<20), b.rss/(1<<20))
	healthy(t, url)
}

var labelledLine = regexp.MustCompile(`(?m)^([a-z_]+)\{([^}]*)\} ([0-9.e+]+)$`)

// counter reads a labelled metric (labels as written: reason="rate").
func counter(t testing.TB, url, name, labels string) float64 {
	t.Helper()
	b, err := procs.Metrics(url)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range labelledLine.FindAllStringSubmatch(b, -1) {
		if m[1] == name && m[2] == labels {
			v, _ := strconv.ParseFloat(m[3], 64)
			return v
		}
	}
	t.Fatalf("metric %s{%s} missing", name, labels)
	return 0
}

// hostileConn is one raw connection from the hostile side.
type hostileConn struct {
	net.Conn
	opened time.Time
}

// dialHostile opens n raw connections to the gateway, with receive
// buffers of rcvbuf bytes when rcvbuf > 0 (a client that reads nothing
// holds little in its own kernel).
func dialHostile(t *testing.T, url string, n, rcvbuf int) []*hostileConn {
	t.Helper()
	d := &net.Dialer{Timeout: 30 * time.Second}
	if rcvbuf > 0 {
		d.Control = func(_, _ string, c syscall.RawConn) error {
			return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvbuf) })
		}
	}
	out := make([]*hostileConn, 0, n)
	for range n {
		c, err := d.Dial("tcp", strings.TrimPrefix(url, "http://"))
		if err != nil {
			t.Fatalf("connection %d: %v", len(out), err)
		}
		out = append(out, &hostileConn{Conn: c, opened: time.Now()})
	}
	t.Cleanup(func() {
		for _, c := range out {
			c.Close()
		}
	})
	return out
}

// cutResult is how a hostile connection ended: its response's status (0:
// closed without one) and when, after it opened.
type cutResult struct {
	status int
	after  time.Duration
	err    error
}

// awaitCuts reads each connection until the gateway answers or closes it,
// at most within; results in connection order.
func awaitCuts(conns []*hostileConn, within time.Duration) []cutResult {
	out := make([]cutResult, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(c.opened.Add(within))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			r := cutResult{after: time.Since(c.opened), err: err}
			if err == nil {
				r.status = resp.StatusCode
				resp.Body.Close()
			} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
				r.status = -1 // neither answered nor closed
			}
			out[i] = r
		}()
	}
	wg.Wait()
	return out
}

// dripUntilCut writes data to every connection a byte a second until the
// gateway has answered or closed each (at most within after it opened),
// while the ordinary client must be answered 200 within a second; it
// returns how each connection ended.
func dripUntilCut(t *testing.T, url string, conns []*hostileConn, data string, within time.Duration, what string) []cutResult {
	t.Helper()
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < len(data); i++ {
			for _, c := range conns {
				c.Write([]byte{data[i]})
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
		}
	}()
	p := startProber(url, 100*time.Millisecond)
	cuts := awaitCuts(conns, within)
	close(stop)
	<-done
	servedWithin(t, what, p.finish(), time.Second)
	return cuts
}

// headers is a chat request's head declaring n body bytes.
func headers(n int) string {
	return fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: mmgate\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", n)
}
