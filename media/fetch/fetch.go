package fetch

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// Media is what a fetch produced.
type Media struct {
	Bytes []byte
	// MIME is the media type the source declared (the data: URL header or
	// the HTTP Content-Type, lower case, parameters removed), or "" when it
	// declared none. It is not checked against the bytes; decoders sniff the
	// format themselves (see MIMEMismatch for an optional check).
	MIME string
	// Source is "data", "http" (for http and https) or "file".
	Source string

	release func() // gives Bytes back to the Fetcher; nil when not pooled
}

// Release hands Bytes back to the Fetcher, which decodes the next data: URL
// into them: call it once the bytes are no longer used (nothing may read
// them afterwards), or never (the garbage collector then takes them).
// Decoded data: URLs are the large, short-lived allocations of an image
// request; reusing their buffers keeps the collector, and its pauses, away.
func (m *Media) Release() {
	if m != nil && m.release != nil {
		r := m.release
		m.release, m.Bytes = nil, nil
		r()
	}
}

// maxPooledBuffer bounds the capacity of a decoding buffer kept for reuse.
const maxPooledBuffer = 16 << 20

// Resolver looks up the addresses of a host name. *net.Resolver implements
// it. network is "ip", "ip4" or "ip6".
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Dialer opens connections. *net.Dialer implements it. The Fetcher only ever
// calls it with an IP address that passed the policy, never with a name.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// Options holds the injectable parts of a Fetcher; the zero value uses the
// system resolver and a net.Dialer.
type Options struct {
	Resolver Resolver
	Dialer   Dialer
	// TLSConfig is the client TLS configuration for https (nil: Go's
	// defaults with the system roots).
	TLSConfig *tls.Config
	// UserAgent is sent with http(s) requests; "" means "mmgate".
	UserAgent string
}

// Fetcher reads media URLs under a Policy. It is immutable after New and safe
// for concurrent use; its HTTP client keeps a connection pool per host.
type Fetcher struct {
	pol       *resolved
	resolver  Resolver
	dialer    Dialer
	client    *http.Client
	userAgent string
	bufs      sync.Pool // *[]byte decoding buffers given back by Media.Release
}

// New checks the policy (unknown schemes, malformed allow-list entries,
// missing file roots are errors) and builds a Fetcher.
func New(p Policy, o Options) (*Fetcher, error) {
	pol, err := p.resolve()
	if err != nil {
		return nil, err
	}
	f := &Fetcher{pol: pol, resolver: o.Resolver, dialer: o.Dialer, userAgent: o.UserAgent}
	if f.resolver == nil {
		f.resolver = net.DefaultResolver
	}
	if f.dialer == nil {
		f.dialer = &net.Dialer{Timeout: pol.timeout, KeepAlive: 30 * time.Second}
	}
	if f.userAgent == "" {
		f.userAgent = "mmgate"
	}
	var tlsConf *tls.Config
	if o.TLSConfig != nil {
		tlsConf = o.TLSConfig.Clone()
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would dial addresses the policy never saw
		DialContext:            f.dialContext,
		TLSClientConfig:        tlsConf,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    8,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    pol.timeout,
		ExpectContinueTimeout:  time.Second,
		DisableCompression:     true, // media is compressed already; count the bytes the server sends
		MaxResponseHeaderBytes: 64 << 10,
	}
	f.client = &http.Client{Transport: tr, CheckRedirect: f.checkRedirect}
	return f, nil
}

// Close releases idle pooled connections. The Fetcher stays usable.
func (f *Fetcher) Close() {
	f.client.CloseIdleConnections()
}

// MaxBytes is the effective per-item byte cap.
func (f *Fetcher) MaxBytes() int64 { return f.pol.maxBytes }

// Fetch reads the media a URL names: a data: URL is decoded, an http(s) URL
// downloaded, a file: URL read, each under the policy. Every error is an
// *Error (see the Err* kinds).
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (*Media, error) {
	raw := strings.Trim(rawURL, asciiSpace)
	scheme := ""
	if i := strings.IndexByte(raw, ':'); i > 0 {
		scheme = strings.ToLower(raw[:i])
	}
	if !validScheme(scheme) {
		return nil, &Error{Op: "fetch", URL: shortURL(raw), Kind: ErrBadURL, Detail: "missing or invalid URL scheme"}
	}
	if !f.pol.schemes[scheme] {
		return nil, &Error{Op: "fetch", URL: shortURL(raw), Kind: ErrForbidden, Detail: "scheme " + scheme + ": not allowed"}
	}
	switch scheme {
	case "data":
		return f.fetchData(raw)
	case "http", "https":
		return f.fetchHTTP(ctx, raw)
	case "file":
		return f.fetchFile(ctx, raw)
	}
	return nil, &Error{Op: "fetch", URL: shortURL(raw), Kind: ErrForbidden, Detail: "scheme " + scheme + ": not allowed"}
}

func (f *Fetcher) fetchData(raw string) (*Media, error) {
	d, err := ParseDataURL(raw)
	if err != nil {
		return nil, err
	}
	bp, _ := f.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	b, err := d.decodeInto(*bp, f.pol.maxBytes)
	if err != nil {
		f.bufs.Put(bp)
		return nil, withOp(err, "fetch data", shortURL(raw))
	}
	m := &Media{Bytes: b, MIME: d.MIME, Source: "data"}
	if cap(b) <= maxPooledBuffer {
		m.release = func() {
			*bp = b[:0]
			f.bufs.Put(bp)
		}
	}
	return m, nil
}

// validScheme reports an RFC 3986 scheme: a letter, then letters, digits,
// '+', '-' or '.'.
func validScheme(s string) bool {
	if s == "" || !('a' <= s[0] && s[0] <= 'z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
