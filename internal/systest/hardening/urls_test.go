package hardening

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	neturl "net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mmgate/mmgate/media/fetch"
)

// trap is a loopback HTTP server that records every request it receives; a
// forbidden URL must never reach it.
type trap struct {
	srv  *httptest.Server
	hits atomic.Int64
}

func newTrap(t *testing.T) *trap {
	tr := &trap{}
	tr.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr.hits.Add(1)
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	}))
	t.Cleanup(tr.srv.Close)
	return tr
}

func (tr *trap) port() string {
	_, p, _ := net.SplitHostPort(tr.srv.Listener.Addr().String())
	return p
}

func imageRequest(url string) []byte {
	return []byte(fmt.Sprintf(`{"model":"qwen3-vl","max_tokens":4,"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":%q}},{"type":"text","text":"x"}]}]}`, url))
}

// loopbackSpellings are URLs that all reach this machine's loopback
// interface on port.
func loopbackSpellings(port string) []string {
	hosts := []string{
		"127.0.0.1", "127.1", "127.0.1", "2130706433", "0x7f.1", "0x7f000001", "017700000001", "0177.0.0.1",
		"127.0.0.1.", "127.255.255.254", "[::1]", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]",
		"[::127.0.0.1]", "[64:ff9b::127.0.0.1]", "localhost", "LOCALHOST", "localhost.", "foo.localhost",
		"0.0.0.0", "0", "[::]",
	}
	var out []string
	for _, h := range hosts {
		out = append(out, "http://"+h+":"+port+"/cat.png")
	}
	return append(out, "https://127.0.0.1:"+port+"/cat.png")
}

// TestGatewayLoopbackURLs: every spelling of loopback is refused with 403
// media_url_forbidden by a gateway with the default policy, and so is every
// redirect into loopback from a host the policy opens; the trap server
// behind those addresses is never reached.
func TestGatewayLoopbackURLs(t *testing.T) {
	shm := shmDir(t)
	tr := newTrap(t)
	url, gw := startGateway(t, shm, "--embedded-worker")
	for _, u := range loopbackSpellings(tr.port()) {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		r, err := post(ctx, url, "/v1/chat/completions", imageRequest(u))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if r.status != 403 || r.code != "media_url_forbidden" {
			t.Errorf("%s: got %v, want 403 media_url_forbidden", u, r)
		}
	}
	if n := tr.hits.Load(); n != 0 {
		t.Errorf("the loopback server was reached %d times", n)
	}
	// Credentials in a media URL are a malformed URL (400), never fetched.
	r, err := post(context.Background(), url, "/v1/chat/completions", imageRequest("http://user:pw@127.0.0.1:"+tr.port()+"/cat.png"))
	if err != nil || r.status != 400 || r.code != "invalid_request_error" {
		t.Errorf("userinfo URL: %v %v, want 400 invalid_request_error", err, r)
	}

	// A gateway that opens 127.0.0.1 (a model-repository mirror, say)
	// still refuses redirects from it into other loopback spellings.
	redir := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	}))
	defer redir.Close()
	url2, _ := startGateway(t, shm, "--embedded-worker", "--fetch-allow-host", "127.0.0.1")
	for _, u := range loopbackSpellings(tr.port()) {
		if strings.Contains(u, "//127.0.0.1:") || strings.HasPrefix(u, "https:") || strings.Contains(u, "::ffff:") {
			// The opened address itself (the IPv4-mapped forms are the
			// same address, so the policy rightly lets them through).
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		r, err := post(ctx, url2, "/v1/chat/completions", imageRequest(redir.URL+"/r?to="+neturl.QueryEscape(u)))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if r.status != 403 || r.code != "media_url_forbidden" {
			t.Errorf("redirect to %s: got %v, want 403 media_url_forbidden", u, r)
		}
	}
	if n := tr.hits.Load(); n != 0 {
		t.Errorf("the loopback server was reached %d times through redirects", n)
	}
	if !gw.Alive() {
		t.Fatal("gateway died")
	}
	healthy(t, url)
}

// guard is a Resolver and Dialer for media/fetch that knows a few test
// names and fails the test on any attempt to connect to a non-loopback
// address; it never asks the system resolver.
type guard struct {
	t     *testing.T
	names map[string][]netip.Addr
	dials atomic.Int64
}

func (g *guard) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	if a, ok := g.names[strings.TrimSuffix(strings.ToLower(host), ".")]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host (test resolver)", Name: host, IsNotFound: true}
}

func (g *guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	g.dials.Add(1)
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		g.t.Errorf("dial with a malformed address %q", address)
		return nil, err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		g.t.Errorf("attempted connection to %s (%s): tests must never leave loopback", address, network)
		return nil, errors.New("test dialer: refused non-loopback connection")
	}
	var d net.Dialer
	return d.DialContext(ctx, network, address)
}

func addrs(s ...string) []netip.Addr {
	var out []netip.Addr
	for _, a := range s {
		out = append(out, netip.MustParseAddr(a))
	}
	return out
}

func newGuardedFetcher(t *testing.T, p fetch.Policy, g *guard) *fetch.Fetcher {
	f, err := fetch.New(p, fetch.Options{Resolver: g, Dialer: g})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// TestFetchPrivateAndMetadataNames: names that resolve (even partly) to
// private, link-local, shared or metadata addresses are refused before any
// connection, directly and through redirects from an allowed host.
func TestFetchPrivateAndMetadataNames(t *testing.T) {
	g := &guard{t: t, names: map[string][]netip.Addr{
		"media.test":            addrs("127.0.0.1"), // opened by the policy below
		"ten.test":              addrs("10.1.2.3"),
		"one92.test":            addrs("192.168.1.20"),
		"one72.test":            addrs("172.20.0.5"),
		"cgnat.test":            addrs("100.64.3.4"),
		"ula.test":              addrs("fd12:3456::1"),
		"linklocal.test":        addrs("fe80::1"),
		"linklocal4.test":       addrs("169.254.10.10"),
		"metadata.test":         addrs("169.254.169.254"),
		"ecs-metadata.test":     addrs("169.254.170.2"),
		"aws6-metadata.test":    addrs("fd00:ec2::254"),
		"alibaba-metadata.test": addrs("100.100.100.200"),
		"oracle-metadata.test":  addrs("192.0.0.192"),
		"mixed.test":            addrs("93.184.215.14", "10.0.0.1"), // one public, one private: refused
		"mapped.test":           addrs("::ffff:10.0.0.1"),
		"nat64.test":            addrs("64:ff9b::a9fe:a9fe"), // 169.254.169.254 through NAT64
		"loop.test":             addrs("127.0.0.1"),
		"unspecified.test":      addrs("0.0.0.0"),
	}}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if to := r.URL.Query().Get("to"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		hits.Add(1)
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	f := newGuardedFetcher(t, fetch.Policy{AllowedHosts: []string{"media.test"}, Timeout: 5 * time.Second}, g)
	ctx := context.Background()

	// The allowed name works (so the refusals below are the policy's).
	if m, err := f.Fetch(ctx, "http://media.test:"+port+"/x"); err != nil || string(m.Bytes) != "ok" {
		t.Fatalf("allowed host: %v", err)
	}
	hits.Store(0)
	targets := []string{}
	for name := range g.names {
		if name != "media.test" {
			targets = append(targets, "http://"+name+":"+port+"/x")
		}
	}
	targets = append(targets, "http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://10.0.0.1:"+port+"/",
		"http://metadata.google.internal/computeMetadata/v1/", "http://metadata/", "http://[fe80::1%25eth0]:"+port+"/")
	for _, u := range targets {
		for _, via := range []string{"", "redirect"} {
			target := u
			if via != "" {
				target = "http://media.test:" + port + "/r?to=" + neturl.QueryEscape(u)
			}
			_, err := f.Fetch(ctx, target)
			if !errors.Is(err, fetch.ErrForbidden) {
				t.Errorf("%s %s: err = %v, want ErrForbidden", via, u, err)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("refused URLs reached the server %d times", n)
	}
}

// TestFetchHostileServers: slow headers, slow bodies, endless bodies,
// Content-Length lies and redirect loops end in the documented error kinds
// within the timeout, with no more than MaxBytes read.
func TestFetchHostileServers(t *testing.T) {
	g := &guard{t: t, names: map[string][]netip.Addr{"media.test": addrs("127.0.0.1")}}
	const maxBytes = 64 << 10
	var sent atomic.Int64
	mux := http.NewServeMux()
	stall := make(chan struct{})
	defer close(stall)
	mux.HandleFunc("/slow-headers", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stall:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte("\x89PNG"))
		w.(http.Flusher).Flush()
		select {
		case <-stall:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/drip", func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 1000; i++ {
			if _, err := w.Write([]byte{'x'}); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(50 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 32<<10)
		for {
			n, err := w.Write(buf)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/big-length", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10000000000")
		w.Write([]byte("short"))
	})
	mux.HandleFunc("/short-body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5000")
		w.Write([]byte("only a few bytes, then the connection closes"))
	})
	mux.HandleFunc("/long-body", func(w http.ResponseWriter, r *http.Request) {
		// Declares 10 bytes but writes far more: only the declared 10 may
		// come through.
		conn, bw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 10\r\nConnection: close\r\n\r\n")
		bw.Write(make([]byte, 1<<20))
		bw.Flush()
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/status500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) })
	mux.HandleFunc("/status404", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	base := "http://media.test:" + port
	const timeout = 1500 * time.Millisecond
	f := newGuardedFetcher(t, fetch.Policy{AllowedHosts: []string{"media.test"}, Timeout: timeout, MaxBytes: maxBytes}, g)

	cases := []struct {
		path string
		want error
		n    int // expected len(Bytes) on success
	}{
		{"/slow-headers", fetch.ErrTimeout, 0},
		{"/slow-body", fetch.ErrTimeout, 0},
		{"/drip", fetch.ErrTimeout, 0},
		{"/endless", fetch.ErrTooLarge, 0},
		{"/big-length", fetch.ErrTooLarge, 0},
		{"/short-body", fetch.ErrFetch, 0},
		{"/long-body", nil, 10},
		{"/loop", fetch.ErrFetch, 0},
		{"/status500", fetch.ErrFetch, 0},
		{"/status404", fetch.ErrFetch, 0},
	}
	for _, c := range cases {
		start := time.Now()
		m, err := f.Fetch(context.Background(), base+c.path)
		d := time.Since(start)
		if c.want == nil {
			if err != nil || len(m.Bytes) != c.n {
				t.Errorf("%s: err %v, %d bytes; want %d bytes", c.path, err, len(m.Bytes), c.n)
			}
		} else if !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.path, err, c.want)
		}
		if d > timeout+3*time.Second {
			t.Errorf("%s: took %v with a %v timeout", c.path, d, timeout)
		}
	}
	// The endless body was not read much past the cap (the server may have
	// buffered some more into the socket).
	if s := sent.Load(); s > 8*maxBytes+(4<<20) {
		t.Errorf("endless body: server wrote %d bytes for a %d-byte cap", s, maxBytes)
	}
	// A caller's own deadline ends a slow fetch too.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := f.Fetch(ctx, base+"/slow-headers")
	if err == nil || time.Since(start) > time.Second {
		t.Errorf("caller deadline: err %v after %v", err, time.Since(start))
	}
	if g.dials.Load() == 0 {
		t.Error("the guarded dialer was never used")
	}
	_ = io.Discard
}
