package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/internal/limits"
	"github.com/mmgate/mmgate/openai"
)

// This file tests the limits against slow and hostile clients on real
// connections: bodies that stall or crawl, responses nobody reads, the
// processing-slot queue and per-client limits.

// limitServer runs a Server with a registry the test reads.
func limitServer(t *testing.T, b Backend, mod func(*Options)) (string, *Server, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	s := newServer(t, func(o *Options) {
		o.Backend, o.Registry = b, reg
		if mod != nil {
			mod(o)
		}
	})
	ts := newTestServer(t, s)
	return ts, s, reg
}

// newTestServer serves s on a loopback listener through its own
// HTTPServer and Listener, as mmgate serve does.
func newTestServer(t *testing.T, s *Server) string {
	t.Helper()
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Listener(raw)
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer(nil, nil, nil)
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })
	return "http://" + raw.Addr().String()
}

func refused(t *testing.T, reg *prometheus.Registry, reason string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "mmgate_http_refused_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == reason {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no mmgate_http_refused_total{reason=%q}", reason)
	return 0
}

// rawRequest opens a connection and sends the request line and headers of
// a chat request declaring n body bytes.
func rawRequest(t *testing.T, base string, n int, extra string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n", n, extra)
	return c
}

// readStatus reads the response's status code and whether the server
// closes the connection after it (when the response says it will: then
// the server must close within 5 s). A reset counts as closed: a client
// that keeps sending after the answer has bytes the server never reads,
// and closing a socket with unread bytes resets it.
func readStatus(t *testing.T, c net.Conn) (int, bool) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if !resp.Close {
		return resp.StatusCode, false
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = br.ReadByte()
	if err != io.EOF && !errors.Is(err, syscall.ECONNRESET) {
		t.Logf("after the %d answer that says it closes: read %v, want the end of the connection", resp.StatusCode, err)
		return resp.StatusCode, false
	}
	return resp.StatusCode, true
}

var paceOpts = func(o *Options) {
	o.BodyReadTimeout, o.BodyMinRate, o.BodyRateGrace = 400*time.Millisecond, 1000, 300*time.Millisecond
}

// A body that stops, and one that crawls, are answered 408 and their
// connections closed, counted and logged; neither held a processing slot
// meanwhile, and a body sent at the minimum rate passes.
func TestSlowBodies(t *testing.T) {
	url, s, reg := limitServer(t, &fakeBackend{reply: "ok"}, func(o *Options) { paceOpts(o); o.MaxInFlight = 1 })
	body := simple + `}`
	stopped := rawRequest(t, url, len(body), "")
	stopped.Write([]byte(body[:10]))
	crawl := rawRequest(t, url, len(body), "")
	go func() {
		for i := range body {
			if _, err := crawl.Write([]byte{body[i]}); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond) // 10 B/s against 1000 B/s
		}
	}()
	// Both are uploading: ordinary requests are served.
	time.Sleep(100 * time.Millisecond)
	if st := s.adm.uploads.Stats(); st.InUse != 2 {
		t.Fatalf("uploads %d, want 2", st.InUse)
	}
	for range 3 {
		if r := post(t, url, body); r.StatusCode != 200 {
			t.Fatalf("ordinary request during the uploads: %d", r.StatusCode)
		} else {
			r.Body.Close()
		}
	}
	start := time.Now()
	for _, c := range []net.Conn{stopped, crawl} {
		if code, closed := readStatus(t, c); code != 408 || !closed {
			t.Errorf("status %d, closed %v; want 408 and the connection closed", code, closed)
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cut after %v", d)
	}
	if n := refused(t, reg, limits.ReasonBodyTimeout); n != 2 {
		t.Errorf("body_timeout refusals %v", n)
	}
	// At 2000 B/s after the grace the same body passes: 1.3 s in all.
	steady := rawRequest(t, url, len(body), "")
	for i := 0; i < len(body); i += 20 {
		steady.Write([]byte(body[i:min(i+20, len(body))]))
		time.Sleep(10 * time.Millisecond)
	}
	if code, _ := readStatus(t, steady); code != 200 {
		t.Errorf("steady body: %d", code)
	}
	if st := s.adm.uploads.Stats(); st.InUse != 0 || s.adm.uploadBytes.Stats().InUse != 0 {
		t.Errorf("uploads left: %+v %+v", st, s.adm.uploadBytes.Stats())
	}
}

// Requests refused before their bodies are read close their connections
// rather than read the rest.
func TestRefusalClosesUnreadBody(t *testing.T) {
	url, _, reg := limitServer(t, &fakeBackend{reply: "ok"}, func(o *Options) { o.MaxUploads = 1 })
	first := rawRequest(t, url, 1000, "") // holds the only upload place
	first.Write([]byte("{"))
	time.Sleep(100 * time.Millisecond)
	second := rawRequest(t, url, 1000, "")
	if code, closed := readStatus(t, second); code != 429 || !closed {
		t.Errorf("over max uploads: %d, closed %v", code, closed)
	}
	if n := refused(t, reg, limits.ReasonUploads); n != 1 {
		t.Errorf("uploads refusals %v", n)
	}
}

// blockBackend holds every request until released, counting them.
type blockBackend struct {
	fakeBackend
	running atomic.Int64
	release chan struct{}
}

func (b *blockBackend) Chat(ctx context.Context, req *openai.ChatRequest, id string) (openai.Generation, error) {
	b.running.Add(1)
	defer b.running.Add(-1)
	select {
	case <-b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return b.fakeBackend.Chat(ctx, req, id)
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// With a queue, a request at the limit waits for a slot; one that waits
// longer than the queue timeout gets 503 queue_timeout with Retry-After.
func TestQueue(t *testing.T) {
	b := &blockBackend{fakeBackend: fakeBackend{reply: "ok"}, release: make(chan struct{})}
	url, s, reg := limitServer(t, b, func(o *Options) { o.MaxInFlight, o.QueueTimeout = 1, 300*time.Millisecond })
	first := make(chan int)
	go func() { r := post(t, url, simple+`}`); r.Body.Close(); first <- r.StatusCode }()
	waitUntil(t, "the first request", func() bool { return b.running.Load() == 1 })
	start := time.Now()
	r := post(t, url, simple+`}`)
	r.Body.Close()
	if r.StatusCode != 503 || r.Header.Get("Retry-After") != "1" || time.Since(start) < 300*time.Millisecond {
		t.Errorf("after the queue timeout: %d, Retry-After %q, after %v", r.StatusCode, r.Header.Get("Retry-After"), time.Since(start))
	}
	if n := refused(t, reg, limits.ReasonQueueTimeout); n != 1 {
		t.Errorf("queue_timeout refusals %v", n)
	}
	// A request that arrives while the first runs gets its slot when the
	// first ends.
	second := make(chan int)
	go func() { r := post(t, url, simple+`}`); r.Body.Close(); second <- r.StatusCode }()
	waitUntil(t, "a waiter", func() bool { return s.adm.slots.Stats().Waiting == 1 })
	b.release <- struct{}{}
	b.release <- struct{}{}
	if a, b := <-first, <-second; a != 200 || b != 200 {
		t.Errorf("first %d, queued %d", a, b)
	}
	if st := s.adm.slots.Stats(); st.InUse != 0 {
		t.Errorf("slots in use %d", st.InUse)
	}
}

// endlessGen streams events until closed, one per pace.
type endlessGen struct {
	closed chan struct{}
	once   atomic.Bool
	pace   time.Duration
}

func (g *endlessGen) Model() string     { return "demo" }
func (g *endlessGen) Choices() int      { return 1 }
func (g *endlessGen) PromptTokens() int { return 1 }
func (g *endlessGen) Next() (openai.Event, error) {
	if g.pace > 0 {
		time.Sleep(g.pace)
	}
	select {
	case <-g.closed:
		return openai.Event{}, context.Canceled
	default:
		return openai.Event{Text: strings.Repeat("token ", 50)}, nil
	}
}
func (g *endlessGen) Close() {
	if g.once.CompareAndSwap(false, true) {
		close(g.closed)
	}
}

type endlessBackend struct {
	fakeBackend
	gens chan *endlessGen
	pace atomic.Int64 // of the generations made from now on
}

func (b *endlessBackend) Chat(context.Context, *openai.ChatRequest, string) (openai.Generation, error) {
	g := &endlessGen{closed: make(chan struct{}), pace: time.Duration(b.pace.Load())}
	b.gens <- g
	return g, nil
}

// A streaming client that stops reading is cut after the stall timeout:
// its generation is closed, its slot freed, the cut counted; a slow client
// that keeps reading is not.
func TestClientStall(t *testing.T) {
	b := &endlessBackend{gens: make(chan *endlessGen, 4)}
	url, s, reg := limitServer(t, b, func(o *Options) { o.ClientStallTimeout = 500 * time.Millisecond })
	c, err := net.DialTCP("tcp", nil, net.TCPAddrFromAddrPort(netip.MustParseAddrPort(strings.TrimPrefix(url, "http://"))))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := simple + `,"stream":true}`
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	g := <-b.gens
	start := time.Now()
	select {
	case <-g.closed:
	case <-time.After(20 * time.Second):
		t.Fatal("the generation of a client that stopped reading was not closed")
	}
	t.Logf("cut %v after the stream began", time.Since(start))
	waitUntil(t, "the slot freed", func() bool { return s.adm.slots.Stats().InUse == 0 })
	if n := refused(t, reg, limits.ReasonClientStall); n != 1 {
		t.Errorf("client_stall cuts %v", n)
	}
	// A client that reads in bursts with pauses but keeps up with the
	// stream (about 350 kB/s, the reader 640 kB/s) keeps it. (A reader
	// slower than the stream for long fills the kernel's buffers, and
	// then takes nothing for seconds at a time as far as the sender can
	// tell: a full receive window reopens once half of it is free, and a
	// blocked writer wakes once a third of its send buffer is.)
	b.pace.Store(int64(time.Millisecond))
	r := post(t, url, body)
	defer r.Body.Close()
	g = <-b.gens
	buf := make([]byte, 32<<10)
	for range 20 {
		if _, err := io.ReadFull(r.Body, buf); err != nil {
			t.Fatalf("slow reader cut: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case <-g.closed:
		t.Fatal("a reading client was cut")
	default:
	}
	if n := refused(t, reg, limits.ReasonClientStall); n != 1 {
		t.Errorf("client_stall cuts %v", n)
	}
}

// Per-client limits: a client over its rate gets 429 with Retry-After
// while another client is served; behind a trusted proxy the client is
// the X-Forwarded-For address; with API keys, the key.
func TestPerClientLimits(t *testing.T) {
	b := &fakeBackend{reply: "ok"}
	url, _, reg := limitServer(t, b, func(o *Options) {
		o.Clients = limits.ClientOptions{Rate: 0.001, Burst: 2}
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	status := func(hdr ...string) *http.Response {
		r := post(t, url, simple+`}`, hdr...)
		r.Body.Close()
		return r
	}
	for range 2 {
		if r := status("X-Forwarded-For", "192.0.2.1"); r.StatusCode != 200 {
			t.Fatalf("within the burst: %d", r.StatusCode)
		}
	}
	r := status("X-Forwarded-For", "192.0.2.1")
	if r.StatusCode != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("over the rate: %d Retry-After %q", r.StatusCode, r.Header.Get("Retry-After"))
	}
	if r := status("X-Forwarded-For", "192.0.2.2"); r.StatusCode != 200 {
		t.Errorf("another client: %d", r.StatusCode)
	}
	if n := refused(t, reg, limits.ReasonRate); n != 1 {
		t.Errorf("rate refusals %v", n)
	}
	// Per API key.
	url2, _, _ := limitServer(t, b, func(o *Options) {
		o.Clients = limits.ClientOptions{Rate: 0.001, Burst: 1}
		o.APIKeys = []string{"k1", "k2"}
	})
	send := func(key string) int {
		r := post(t, url2, simple+`}`, "Authorization", "Bearer "+key)
		r.Body.Close()
		return r.StatusCode
	}
	if a, b, c := send("k1"), send("k1"), send("k2"); a != 200 || b != 429 || c != 200 {
		t.Errorf("per key: %d %d %d, want 200 429 200", a, b, c)
	}
}

// A client over its concurrency is refused while its other request runs.
func TestPerClientConcurrency(t *testing.T) {
	b := &blockBackend{fakeBackend: fakeBackend{reply: "ok"}, release: make(chan struct{})}
	url, _, reg := limitServer(t, b, func(o *Options) { o.Clients = limits.ClientOptions{MaxInFlight: 1} })
	done := make(chan int)
	go func() { r := post(t, url, simple+`}`); r.Body.Close(); done <- r.StatusCode }()
	waitUntil(t, "the first request", func() bool { return b.running.Load() == 1 })
	r := post(t, url, simple+`}`)
	r.Body.Close()
	if r.StatusCode != 429 {
		t.Errorf("second request of the client: %d", r.StatusCode)
	}
	b.release <- struct{}{}
	if code := <-done; code != 200 {
		t.Errorf("first: %d", code)
	}
	if n := refused(t, reg, limits.ReasonClientInFlight); n != 1 {
		t.Errorf("client_in_flight refusals %v", n)
	}
}
