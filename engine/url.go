package engine

import (
	"fmt"
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// ParseWorkerURL checks a worker URL and returns the gRPC dial target for it.
// Accepted forms:
//
//	grpc://HOST:PORT   TCP, plaintext (HOST a name, an IPv4 address or a
//	                   bracketed IPv6 address; PORT 1..65535)
//	grpcs://HOST:PORT  TCP with TLS (see WorkerConfig.TLS)
//	unix:///path       a Unix socket at an absolute path
//
// Anything else (user info, query, fragment, a path after HOST:PORT, a
// relative socket path, https://) fails with ErrBadURL or ErrUnsupported.
// Use IsTLSURL to know whether the connection must use TLS.
func ParseWorkerURL(raw string) (target string, err error) {
	fail := func(why string) (string, error) {
		return "", fmt.Errorf("engine: worker url %q: %s: %w", raw, why, ErrBadURL)
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return fail("want grpc://HOST:PORT or unix:///path")
	}
	switch strings.ToLower(scheme) {
	case "https":
		return "", fmt.Errorf("engine: worker url %q: https:// is %w; use grpcs://HOST:PORT for TLS", raw, ErrUnsupported)
	case "grpc", "grpcs":
		if rest == "" || strings.ContainsAny(rest, "/?#@ \t") {
			return fail("want " + strings.ToLower(scheme) + "://HOST:PORT with nothing after the port")
		}
		host, port, err := net.SplitHostPort(rest)
		if err != nil || host == "" {
			return fail("want grpc://HOST:PORT")
		}
		p, err := strconv.Atoi(port)
		if err != nil || p < 1 || p > 65535 || port != strconv.Itoa(p) {
			return fail("port must be a number from 1 to 65535")
		}
		if strings.Contains(host, ":") && net.ParseIP(host) == nil {
			return fail("bad IPv6 address")
		}
		if !strings.Contains(host, ":") && !validHost(host) {
			return fail("bad host name")
		}
		return "dns:///" + net.JoinHostPort(host, port), nil
	case "unix":
		u, err := url.Parse(raw)
		if err != nil {
			return fail(err.Error())
		}
		if u.Host != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
			return fail("want unix:///absolute/path")
		}
		if !strings.HasPrefix(u.Path, "/") || u.Path == "/" || strings.HasSuffix(u.Path, "/") || path.Clean(u.Path) != u.Path {
			return fail("socket path must be absolute and clean")
		}
		if strings.ContainsRune(u.Path, 0) {
			return fail("NUL in socket path")
		}
		// The target is parsed again as a URL (by gRPC's unix resolver):
		// re-escape the decoded path so that it decodes to the same path
		// ("%10" stays "%10", not a raw control byte that no URL parser
		// accepts; a literal "%" stays "%25").
		return "unix://" + (&url.URL{Path: u.Path}).EscapedPath(), nil
	}
	return fail("scheme must be grpc, grpcs or unix")
}

// IsTLSURL reports whether a worker URL asks for TLS (grpcs://).
func IsTLSURL(raw string) bool {
	scheme, _, ok := strings.Cut(raw, "://")
	return ok && strings.EqualFold(scheme, "grpcs")
}

// validHost accepts DNS names and IPv4 addresses: letters, digits, '-', '.',
// '_'.
func validHost(h string) bool {
	if len(h) > 253 {
		return false
	}
	for _, c := range h {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '.', c == '_':
		default:
			return false
		}
	}
	return true
}
