package fetch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR-test-image-bytes")

// testServer is an httptest server on 127.0.0.1 with the routes the tests
// need, counting the requests it serves.
type testServer struct {
	*httptest.Server
	hits    atomic.Int64
	imgHits atomic.Int64
	release chan struct{} // closed at cleanup to unblock slow handlers
}

func newTestServer(t *testing.T, tlsServer bool) *testServer {
	t.Helper()
	ts := &testServer{release: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/img", func(w http.ResponseWriter, r *http.Request) {
		ts.imgHits.Add(1)
		w.Header().Set("Content-Type", "image/png; charset=binary")
		w.Write(pngBytes)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("close") != "" {
			w.Header().Set("Connection", "close")
		}
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/chain/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n <= 0 {
			w.Write(pngBytes)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/chain/%d", n-1), http.StatusMovedPermanently)
	})
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.PathValue("code"))
		http.Error(w, "nope", code)
	})
	mux.HandleFunc("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-ts.release:
		}
	})
	mux.HandleFunc("/slow-header", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-ts.release:
		}
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte{0xab}, 32<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			select {
			case <-ts.release:
				return
			default:
			}
		}
	})
	mux.HandleFunc("/big-declared", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(4<<20))
		w.Write(make([]byte, 4<<20))
	})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.hits.Add(1)
		mux.ServeHTTP(w, r)
	})
	if tlsServer {
		ts.Server = httptest.NewTLSServer(h)
	} else {
		ts.Server = httptest.NewServer(h)
	}
	t.Cleanup(func() {
		close(ts.release)
		ts.Server.Close()
	})
	return ts
}

func (ts *testServer) port() string {
	u, _ := url.Parse(ts.URL)
	return u.Port()
}

func loopbackPolicy() Policy {
	return Policy{AllowedCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
}

func TestHTTPLoopbackServerOnlyWhenAllowListed(t *testing.T) {
	ts := newTestServer(t, false)

	f, r, d := newTestFetcher(t, Policy{})
	_, err := f.Fetch(context.Background(), ts.URL+"/img")
	wantKind(t, err, ErrForbidden)
	if ts.hits.Load() != 0 || d.count() != 0 || r.total() != 0 {
		t.Fatalf("refused fetch reached the server: hits %d, dials %d, lookups %d", ts.hits.Load(), d.count(), r.total())
	}

	for name, p := range map[string]Policy{
		"cidr": loopbackPolicy(),
		"host": {AllowedHosts: []string{"127.0.0.1"}},
	} {
		t.Run(name, func(t *testing.T) {
			f, _, _ := newTestFetcher(t, p)
			m, err := f.Fetch(context.Background(), ts.URL+"/img")
			wantKind(t, err, nil)
			if !bytes.Equal(m.Bytes, pngBytes) || m.MIME != "image/png" || m.Source != "http" {
				t.Fatalf("got %q %q %q", m.Bytes, m.MIME, m.Source)
			}
		})
	}
}

func TestHTTPAllowedHostName(t *testing.T) {
	ts := newTestServer(t, false)
	u := "http://img.test:" + ts.port() + "/img"

	f, r, d := newTestFetcher(t, Policy{AllowedHosts: []string{"IMG.test."}})
	r.add("img.test", "127.0.0.1")
	m, err := f.Fetch(context.Background(), u)
	wantKind(t, err, nil)
	if !bytes.Equal(m.Bytes, pngBytes) {
		t.Fatalf("bytes %q", m.Bytes)
	}
	if got := d.addrs(); len(got) != 1 || got[0] != "127.0.0.1:"+ts.port() {
		t.Fatalf("dialed %v", got)
	}

	// The same name without the allow-list entry resolves to loopback: refused.
	f2, r2, d2 := newTestFetcher(t, Policy{})
	r2.add("img.test", "127.0.0.1")
	_, err = f2.Fetch(context.Background(), u)
	wantKind(t, err, ErrForbidden)
	if d2.count() != 0 {
		t.Fatal("dialed a refused address")
	}

	// A wildcard entry.
	f3, r3, _ := newTestFetcher(t, Policy{AllowedHosts: []string{"*.test"}})
	r3.add("img.test", "127.0.0.1")
	_, err = f3.Fetch(context.Background(), u)
	wantKind(t, err, nil)
}

func TestHTTPResolvedAddressRefused(t *testing.T) {
	f, r, d := newTestFetcher(t, Policy{})
	r.add("private.test", "10.1.2.3").
		add("rfc1918b.test", "172.20.0.1").
		add("rfc1918c.test", "192.168.7.7").
		add("cgnat.test", "100.64.1.1").
		add("meta.test", "169.254.169.254").
		add("ecs.test", "169.254.170.2").
		add("alibaba.test", "100.100.100.200").
		add("v6meta.test", "fd00:ec2::254").
		add("ula.test", "fd12:3456::1").
		add("linklocal6.test", "fe80::1").
		add("loop6.test", "::1").
		add("mapped.test", "::ffff:127.0.0.1").
		add("mapped-private.test", "::ffff:10.0.0.1").
		add("nat64.test", "64:ff9b::a00:1").
		add("nat64meta.test", "64:ff9b::a9fe:a9fe").
		add("unspecified.test", "0.0.0.0").
		add("multicast.test", "239.1.1.1").
		add("broadcast.test", "255.255.255.255").
		add("mixed.test", "93.184.216.34", "10.0.0.1").
		add("mixed6.test", "2606:2800:220:1::", "::1")
	for name := range r.hosts {
		t.Run(name, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), "http://"+name+"/x.png")
			wantKind(t, err, ErrForbidden)
		})
	}
	if d.count() != 0 {
		t.Fatalf("dialed %v", d.addrs())
	}
}

func TestHTTPPublicAddressIsDialledByIP(t *testing.T) {
	r := newFakeResolver().add("public.test", "93.184.216.34", "2606:2800:220:1::1")
	d := &guardDialer{t: t, publicOK: true}
	f, err := New(Policy{}, Options{Resolver: r, Dialer: d})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Fetch(context.Background(), "http://public.test/x.png")
	wantKind(t, err, ErrFetch)
	if !errors.Is(err, errNoNetwork) {
		t.Fatalf("error %v does not carry the dial error", err)
	}
	got := d.addrs()
	want := []string{"93.184.216.34:80", "[2606:2800:220:1::1]:80"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("dialed %v, want %v", got, want)
	}
	// A literal public address is dialled as is, https on 443.
	d.dialed = nil
	_, err = f.Fetch(context.Background(), "https://8.8.8.8/x.png")
	wantKind(t, err, ErrFetch)
	if got := d.addrs(); len(got) != 1 || got[0] != "8.8.8.8:443" {
		t.Fatalf("dialed %v", got)
	}
}

func TestHTTPRedirectRefused(t *testing.T) {
	ts := newTestServer(t, false)
	port := ts.port()
	f, r, d := newTestFetcher(t, loopbackPolicy())
	r.add("private.test", "10.0.0.7").add("meta.test", "169.254.169.254").add("loop.test", "127.0.0.1")
	targets := []string{
		"http://localhost:" + port + "/img",
		"http://127.0.0.2:" + port + "/img",
		"http://127.1:" + port + "/img",
		"http://2130706433:" + port + "/img",
		"http://[::1]:" + port + "/img",
		"http://[::ffff:127.0.0.2]:" + port + "/img",
		"http://[::ffff:10.0.0.1]/img",
		"http://10.0.0.1/img",
		"http://169.254.169.254/latest/meta-data/",
		"http://private.test/img",
		"http://meta.test/latest/meta-data/",
		"file:///etc/passwd",
		"ftp://127.0.0.1/img",
		"gopher://127.0.0.1:" + port + "/img",
	}
	for _, to := range targets {
		t.Run(to, func(t *testing.T) {
			before := ts.imgHits.Load()
			_, err := f.Fetch(context.Background(), ts.URL+"/redirect?to="+url.QueryEscape(to))
			wantKind(t, err, ErrForbidden)
			if !strings.Contains(err.Error(), "redirect") {
				t.Errorf("message %q does not mention the redirect", err)
			}
			if ts.imgHits.Load() != before {
				t.Fatal("redirect target was fetched")
			}
		})
	}
	for _, a := range d.addrs() {
		if a != "127.0.0.1:"+port {
			t.Fatalf("dialed %s", a)
		}
	}
	// A redirect to a name the allow-list does not open but that resolves to
	// an allowed address (the CIDR) is followed.
	m, err := f.Fetch(context.Background(), ts.URL+"/redirect?to="+url.QueryEscape("http://loop.test:"+port+"/img"))
	wantKind(t, err, nil)
	if !bytes.Equal(m.Bytes, pngBytes) {
		t.Fatal("wrong bytes after redirect")
	}
}

func TestHTTPRedirectRebindingCheckedPerDial(t *testing.T) {
	ts := newTestServer(t, false)
	port := ts.port()
	f, r, d := newTestFetcher(t, loopbackPolicy())
	r.seq["rebind.test"] = [][]netip.Addr{
		{netip.MustParseAddr("127.0.0.1")},
		{netip.MustParseAddr("10.0.0.1")},
	}
	// The first response closes its connection, so following the redirect to
	// the same name needs a new dial and a new lookup, which now answers a
	// private address.
	first := "http://rebind.test:" + port + "/redirect?close=1&to=" + url.QueryEscape("http://rebind.test:"+port+"/img")
	_, err := f.Fetch(context.Background(), first)
	wantKind(t, err, ErrForbidden)
	if r.calls["rebind.test"] != 2 {
		t.Fatalf("lookups = %d, want 2", r.calls["rebind.test"])
	}
	if d.count() != 1 || ts.imgHits.Load() != 0 {
		t.Fatalf("dials %v, image hits %d", d.addrs(), ts.imgHits.Load())
	}
}

func TestHTTPRedirectLimit(t *testing.T) {
	ts := newTestServer(t, false)
	tests := []struct {
		max  int
		path string
		want error
	}{
		{0, "/chain/3", nil}, // default 3
		{0, "/chain/4", ErrFetch},
		{1, "/chain/1", nil},
		{1, "/chain/2", ErrFetch},
		{-1, "/chain/0", nil},
		{-1, "/chain/1", ErrFetch},
		{10, "/chain/10", nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("max%d%s", tt.max, tt.path), func(t *testing.T) {
			p := loopbackPolicy()
			p.MaxRedirects = tt.max
			f, _, _ := newTestFetcher(t, p)
			_, err := f.Fetch(context.Background(), ts.URL+tt.path)
			wantKind(t, err, tt.want)
			if err != nil && !strings.Contains(err.Error(), "redirects") {
				t.Errorf("message %q", err)
			}
		})
	}
}

func TestHTTPTimeout(t *testing.T) {
	ts := newTestServer(t, false)
	p := loopbackPolicy()
	p.Timeout = 200 * time.Millisecond
	f, _, _ := newTestFetcher(t, p)
	for _, path := range []string{"/slow-body", "/slow-header"} {
		t.Run(path, func(t *testing.T) {
			start := time.Now()
			_, err := f.Fetch(context.Background(), ts.URL+path)
			wantKind(t, err, ErrTimeout)
			if el := time.Since(start); el > 3*time.Second {
				t.Fatalf("took %v", el)
			}
		})
	}
	t.Run("slow DNS", func(t *testing.T) {
		f, r, _ := newTestFetcher(t, p)
		r.block["slow.test"] = true
		_, err := f.Fetch(context.Background(), "http://slow.test/x")
		wantKind(t, err, ErrTimeout)
	})
	t.Run("caller deadline", func(t *testing.T) {
		f, _, _ := newTestFetcher(t, loopbackPolicy())
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := f.Fetch(ctx, ts.URL+"/slow-header")
		wantKind(t, err, ErrTimeout)
	})
	t.Run("caller cancel", func(t *testing.T) {
		f, _, _ := newTestFetcher(t, loopbackPolicy())
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		_, err := f.Fetch(ctx, ts.URL+"/slow-header")
		wantKind(t, err, ErrFetch)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v does not wrap context.Canceled", err)
		}
	})
}

func TestHTTPStatus(t *testing.T) {
	ts := newTestServer(t, false)
	f, _, _ := newTestFetcher(t, loopbackPolicy())
	for _, code := range []int{404, 500, 403, 204} {
		_, err := f.Fetch(context.Background(), fmt.Sprintf("%s/status/%d", ts.URL, code))
		if code == 204 {
			wantKind(t, err, nil)
			continue
		}
		wantKind(t, err, ErrFetch)
		var fe *Error
		errors.As(err, &fe)
		if fe.Status != code || !strings.Contains(err.Error(), strconv.Itoa(code)) {
			t.Fatalf("status %d, message %q", fe.Status, err)
		}
	}
}

func TestHTTPByteCap(t *testing.T) {
	ts := newTestServer(t, false)
	p := loopbackPolicy()
	p.MaxBytes = 1 << 20
	f, _, _ := newTestFetcher(t, p)
	for _, path := range []string{"/endless", "/big-declared"} {
		t.Run(path, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), ts.URL+path)
			wantKind(t, err, ErrTooLarge)
		})
	}
	// Exactly at the cap is fine.
	p.MaxBytes = int64(len(pngBytes))
	f2, _, _ := newTestFetcher(t, p)
	_, err := f2.Fetch(context.Background(), ts.URL+"/img")
	wantKind(t, err, nil)
	p.MaxBytes = int64(len(pngBytes)) - 1
	f3, _, _ := newTestFetcher(t, p)
	_, err = f3.Fetch(context.Background(), ts.URL+"/img")
	wantKind(t, err, ErrTooLarge)
}

// rawServer answers every connection on 127.0.0.1 with fixed bytes, so the
// tests can send what a well-behaved server would not (lying lengths).
func rawServer(t *testing.T, response func(w *bufio.Writer)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					if line == "\r\n" {
						break
					}
				}
				bw := bufio.NewWriter(c)
				response(bw)
				bw.Flush()
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

func TestHTTPLyingContentLength(t *testing.T) {
	p := loopbackPolicy()
	p.MaxBytes = 64 << 10
	f, _, _ := newTestFetcher(t, p)

	t.Run("short body", func(t *testing.T) {
		u := rawServer(t, func(w *bufio.Writer) {
			fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n")
			w.Write(make([]byte, 500))
		})
		_, err := f.Fetch(context.Background(), u+"/x")
		wantKind(t, err, ErrFetch)
	})
	t.Run("long body", func(t *testing.T) {
		// Declares 10 bytes, sends far more than the cap: only the declared
		// bytes are read, the rest never counts.
		u := rawServer(t, func(w *bufio.Writer) {
			fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\n")
			w.Write(bytes.Repeat([]byte("0123456789"), 20<<10))
		})
		m, err := f.Fetch(context.Background(), u+"/x")
		wantKind(t, err, nil)
		if string(m.Bytes) != "0123456789" {
			t.Fatalf("got %d bytes", len(m.Bytes))
		}
	})
	t.Run("absent, over cap", func(t *testing.T) {
		u := rawServer(t, func(w *bufio.Writer) {
			fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
			w.Write(make([]byte, 200<<10))
		})
		_, err := f.Fetch(context.Background(), u+"/x")
		wantKind(t, err, ErrTooLarge)
	})
	t.Run("absent, under cap", func(t *testing.T) {
		u := rawServer(t, func(w *bufio.Writer) {
			fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
			w.Write(pngBytes)
		})
		m, err := f.Fetch(context.Background(), u+"/x")
		wantKind(t, err, nil)
		if !bytes.Equal(m.Bytes, pngBytes) || m.MIME != "" {
			t.Fatalf("got %q, MIME %q", m.Bytes, m.MIME)
		}
	})
	t.Run("declared over cap", func(t *testing.T) {
		u := rawServer(t, func(w *bufio.Writer) {
			fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Length: 999999999999\r\nConnection: close\r\n\r\n")
			w.Write(pngBytes)
		})
		_, err := f.Fetch(context.Background(), u+"/x")
		wantKind(t, err, ErrTooLarge)
	})
	t.Run("chunked over cap", func(t *testing.T) {
		u := rawServer(t, func(w *bufio.Writer) {
			fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
			for range 20 {
				fmt.Fprintf(w, "%x\r\n%s\r\n", 8<<10, make([]byte, 8<<10))
			}
			fmt.Fprintf(w, "0\r\n\r\n")
		})
		_, err := f.Fetch(context.Background(), u+"/x")
		wantKind(t, err, ErrTooLarge)
	})
}

func TestHTTPS(t *testing.T) {
	ts := newTestServer(t, true)
	tlsConf := ts.Client().Transport.(*http.Transport).TLSClientConfig
	f, err := New(loopbackPolicy(), Options{Resolver: newFakeResolver(), Dialer: &guardDialer{t: t}, TLSConfig: tlsConf})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := f.Fetch(context.Background(), ts.URL+"/img")
	wantKind(t, err, nil)
	if !bytes.Equal(m.Bytes, pngBytes) {
		t.Fatal("wrong bytes")
	}
	// https only: plain http refused.
	f2, err := New(Policy{Schemes: []string{"https"}, AllowedCIDRs: loopbackPolicy().AllowedCIDRs},
		Options{Resolver: newFakeResolver(), Dialer: &guardDialer{t: t}, TLSConfig: tlsConf})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f2.Fetch(context.Background(), strings.Replace(ts.URL, "https:", "http:", 1)+"/img")
	wantKind(t, err, ErrForbidden)
	_, err = f2.Fetch(context.Background(), "data:,x")
	wantKind(t, err, ErrForbidden)
}

func TestHTTPConcurrent(t *testing.T) {
	ts := newTestServer(t, false)
	f, _, _ := newTestFetcher(t, loopbackPolicy())
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Go(func() {
			m, err := f.Fetch(context.Background(), ts.URL+"/img")
			if err == nil && !bytes.Equal(m.Bytes, pngBytes) {
				err = errors.New("wrong bytes")
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// BenchmarkFetchHTTPLoopback measures one pooled fetch of a small body from
// a loopback server, policy checks included.
func BenchmarkFetchHTTPLoopback(b *testing.B) {
	body := bytes.Repeat([]byte{0x5a}, 64<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(body)
	}))
	defer srv.Close()
	f, err := New(loopbackPolicy(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := f.Fetch(context.Background(), srv.URL+"/x"); err != nil {
			b.Fatal(err)
		}
	}
}
