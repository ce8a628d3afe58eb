package fetch

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

func (f *Fetcher) fetchHTTP(ctx context.Context, raw string) (*Media, error) {
	const op = "fetch http"
	shown := shortURL(raw)
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the url.Error text repeats the whole URL
		}
		return nil, &Error{Op: op, URL: shown, Kind: ErrBadURL, Err: err}
	}
	if err := f.checkURL(u); err != nil {
		return nil, withOp(err, op, shown)
	}
	ctx, cancel := context.WithTimeout(ctx, f.pol.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &Error{Op: op, URL: shown, Kind: ErrBadURL, Err: err}
	}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "image/*, video/*, */*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, f.classify(ctx, err, op, shown)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &Error{Op: op, URL: shown, Kind: ErrFetch, Status: resp.StatusCode,
			Detail: "remote status " + resp.Status}
	}
	limit := f.pol.maxBytes
	if resp.ContentLength > limit {
		return nil, &Error{Op: op, URL: shown, Kind: ErrTooLarge,
			Detail: fmt.Sprintf("Content-Length %d is over %d bytes", resp.ContentLength, limit)}
	}
	b, err := readCapped(resp.Body, limit, resp.ContentLength)
	if err == errOverCap {
		return nil, &Error{Op: op, URL: shown, Kind: ErrTooLarge, Detail: fmt.Sprintf("body is over %d bytes", limit)}
	}
	if err != nil {
		return nil, f.classify(ctx, err, op, shown)
	}
	return &Media{Bytes: b, MIME: mediaType(resp.Header.Get("Content-Type")), Source: "http"}, nil
}

// classify turns an error from the HTTP client into an *Error: policy
// refusals from the dialer or the redirect check keep their kind; a passed
// deadline is ErrTimeout; everything else is ErrFetch.
func (f *Fetcher) classify(ctx context.Context, err error, op, shown string) error {
	var fe *Error
	if errors.As(err, &fe) && fe.Kind != ErrFetch {
		return withOp(fe, op, shown)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return &Error{Op: op, URL: shown, Kind: ErrTimeout,
			Detail: fmt.Sprintf("not complete within the deadline (policy timeout %v)", f.pol.timeout)}
	}
	if fe != nil {
		return withOp(fe, op, shown)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &Error{Op: op, URL: shown, Kind: ErrFetch, Err: err}
}

// isTimeout reports whether any error in err's tree says it is a timeout
// (net.Error, *net.DNSError, os.ErrDeadlineExceeded…). errors.As would stop
// at the first net.Error, such as the *url.Error around everything.
func isTimeout(err error) bool {
	if err == nil {
		return false
	}
	if t, ok := err.(interface{ Timeout() bool }); ok && t.Timeout() {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return isTimeout(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if isTimeout(e) {
				return true
			}
		}
	}
	return false
}

// checkURL is the policy check of an http(s) URL made before the first
// request and before following each redirect.
func (f *Fetcher) checkURL(u *url.URL) error {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		if validScheme(scheme) && scheme != "" {
			return newErr(ErrForbidden, "scheme %s: not allowed", scheme)
		}
		return newErr(ErrBadURL, "missing or invalid URL scheme")
	}
	if !f.pol.schemes[scheme] {
		return newErr(ErrForbidden, "scheme %s: not allowed", scheme)
	}
	if u.Opaque != "" {
		return newErr(ErrBadURL, "%s URL without //host", scheme)
	}
	if u.User != nil {
		return newErr(ErrBadURL, "credentials in media URLs are not accepted")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return newErr(ErrBadURL, "invalid port %q", p)
		}
	}
	_, err := f.pol.checkHost(u.Hostname())
	return err
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.pol.maxRedirects {
		return newErr(ErrFetch, "stopped after %d redirects", f.pol.maxRedirects)
	}
	if err := f.checkURL(req.URL); err != nil {
		var fe *Error
		if errors.As(err, &fe) {
			out := *fe
			out.Detail = "redirect to " + shortURL(req.URL.String()) + ": " + out.Detail
			return &out
		}
		return err
	}
	return nil
}

// dialContext is the transport's only way out: it checks the host again,
// resolves a name itself, refuses the connection if any resolved address is
// outside the policy, and dials the checked IP addresses, so a second DNS
// answer (rebinding) can never be what is connected to. It runs for every new
// connection, redirects included.
func (f *Fetcher) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	hostStr, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, newErr(ErrBadURL, "dial address %q: %v", addr, err)
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil || port == 0 {
		return nil, newErr(ErrBadURL, "invalid port %q", portStr)
	}
	hs, err := f.pol.checkHost(hostStr)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	if hs.ip.IsValid() {
		ips = []netip.Addr{hs.ip}
	} else {
		lookup := "ip"
		switch network {
		case "tcp4":
			lookup = "ip4"
		case "tcp6":
			lookup = "ip6"
		}
		ips, err = f.resolver.LookupNetIP(ctx, lookup, hs.name)
		if err != nil {
			return nil, &Error{Kind: ErrFetch, Detail: fmt.Sprintf("resolve %q", hs.name), Err: err}
		}
		if len(ips) == 0 {
			return nil, newErr(ErrFetch, "resolve %q: no addresses", hs.name)
		}
		if !f.pol.hostAllowed(hs.name) {
			for _, ip := range ips {
				if err := f.pol.checkAddr(ip); err != nil {
					return nil, newErr(ErrForbidden, "host %q resolves to %s, which is %s", hs.name, ip.WithZone("").Unmap(), ClassifyAddr(ip))
				}
			}
		}
	}
	var firstErr error
	for _, ip := range ips {
		if ip.Is4In6() {
			ip = ip.Unmap()
		}
		conn, err := f.dialer.DialContext(ctx, network, netip.AddrPortFrom(ip, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, &Error{Kind: ErrFetch, Detail: "connect", Err: firstErr}
}

// mediaType returns the lower-case type/subtype of a Content-Type header,
// or "" when it is absent or malformed.
func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !validMediaType(mt) {
		return ""
	}
	return mt
}
