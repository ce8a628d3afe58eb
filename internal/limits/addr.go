package limits

import (
	"net"
	"net/netip"
	"strings"
)

// ClientAddr is the address a request comes from: the peer's IP address
// (remoteAddr is http.Request.RemoteAddr), or, when the peer is one of the
// trusted proxies, the right-most address of X-Forwarded-For (xff: the
// header's values in order) that is not a trusted proxy itself — the
// left-most entries are whatever the client wrote and prove nothing. An
// unusable X-Forwarded-For leaves the proxy's own address. A peer that has
// no IP address (a unix socket) is "local".
func ClientAddr(remoteAddr string, xff []string, trusted []netip.Prefix) string {
	host := remoteAddr
	if h, _, err := net.SplitHostPort(remoteAddr); err == nil {
		host = h
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return "local"
	}
	if len(trusted) == 0 || len(xff) == 0 || !isTrusted(peer, trusted) {
		return host
	}
	for i := len(xff) - 1; i >= 0; i-- {
		v := xff[i]
		for v != "" {
			var part string
			if j := strings.LastIndexByte(v, ','); j >= 0 {
				v, part = v[:j], v[j+1:]
			} else {
				v, part = "", v
			}
			a, ok := forwardedAddr(strings.TrimSpace(part))
			if !ok {
				return host
			}
			if !isTrusted(a, trusted) {
				return a.String()
			}
		}
	}
	return host
}

// forwardedAddr parses one X-Forwarded-For entry: an address, possibly with
// a port ("1.2.3.4:80", "[::1]:80").
func forwardedAddr(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	a = a.Unmap()
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ClientKey is the key per-client limits count an address under: the
// address itself, or for IPv6 its /64 network, which one host usually
// holds whole.
func ClientKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil || !a.Is6() || a.Is4In6() {
		return addr
	}
	p, _ := a.Prefix(64)
	return p.String()
}
