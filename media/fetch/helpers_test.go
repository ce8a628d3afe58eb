package fetch

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"testing"
)

// fakeResolver answers from a table and never touches DNS.
type fakeResolver struct {
	mu    sync.Mutex
	hosts map[string][]netip.Addr   // fixed answers
	seq   map[string][][]netip.Addr // successive answers (the last one repeats)
	calls map[string]int
	block map[string]bool // names whose lookup waits for the context
}

func newFakeResolver() *fakeResolver {
	return &fakeResolver{hosts: map[string][]netip.Addr{}, seq: map[string][][]netip.Addr{}, calls: map[string]int{}, block: map[string]bool{}}
}

func (r *fakeResolver) add(name string, addrs ...string) *fakeResolver {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range addrs {
		r.hosts[name] = append(r.hosts[name], netip.MustParseAddr(a))
	}
	return r
}

func (r *fakeResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[host]++
	if r.block[host] {
		r.mu.Unlock()
		<-ctx.Done()
		r.mu.Lock()
		return nil, &net.DNSError{Err: ctx.Err().Error(), Name: host, IsTimeout: true}
	}
	if s, ok := r.seq[host]; ok {
		return s[min(r.calls[host], len(s))-1], nil
	}
	if a, ok := r.hosts[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (r *fakeResolver) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.calls {
		n += c
	}
	return n
}

var errNoNetwork = errors.New("test dialer: non-loopback connections are never opened")

// guardDialer opens real connections to loopback addresses only. Any other
// address fails the test, unless publicOK is set, in which case the attempt
// is recorded and refused without touching the network.
type guardDialer struct {
	t        testing.TB
	publicOK bool
	mu       sync.Mutex
	dialed   []string
}

func (d *guardDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d.mu.Lock()
	d.dialed = append(d.dialed, address)
	d.mu.Unlock()
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		d.t.Errorf("dialer asked for a non-IP address %q", address)
		return nil, errNoNetwork
	}
	if !ap.Addr().IsLoopback() {
		if !d.publicOK {
			d.t.Errorf("attempt to dial non-loopback address %s", address)
		}
		return nil, errNoNetwork
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, address)
}

func (d *guardDialer) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.dialed)
}

func (d *guardDialer) addrs() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.dialed...)
}

// newTestFetcher builds a Fetcher whose resolver and dialer cannot reach the
// network.
func newTestFetcher(t testing.TB, p Policy) (*Fetcher, *fakeResolver, *guardDialer) {
	t.Helper()
	r := newFakeResolver()
	d := &guardDialer{t: t}
	f, err := New(p, Options{Resolver: r, Dialer: d})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f, r, d
}

// kindOf names the kind of a fetch error for messages.
func kindOf(err error) string {
	for _, k := range []error{ErrBadURL, ErrForbidden, ErrTooLarge, ErrFetch, ErrTimeout} {
		if errors.Is(err, k) {
			return k.Error()
		}
	}
	if err == nil {
		return "<nil>"
	}
	return "untyped: " + err.Error()
}

func wantKind(t testing.TB, err, kind error) {
	t.Helper()
	if kind == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if !errors.Is(err, kind) {
		t.Fatalf("error = %v (%s), want kind %q", err, kindOf(err), kind)
	}
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is not an *Error", err)
	}
}

// runtimeMem reads the cumulative allocated byte count.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}
