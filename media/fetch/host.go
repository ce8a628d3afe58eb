package fetch

import (
	"net/netip"
	"strings"
)

// host is a URL host after normalization: either an IP address or a
// lower-case ASCII DNS name without the trailing dot.
type host struct {
	name string     // DNS name; "" when ip is set
	ip   netip.Addr // the literal address; invalid when name is set
}

// maxHostLen bounds the host names the parser looks at.
const maxHostLen = 253

// parseHost normalizes the host part of a URL (as url.URL.Hostname returns
// it: brackets removed, percent escapes decoded) the way a browser's URL
// parser and the C library's inet_aton would read it, so that no spelling of
// a refused address slips past the literal check:
//
//   - IPv6 literals (with an optional zone) are parsed by netip.
//   - A host whose last label is a number (all digits, or 0x followed by hex
//     digits) is an IPv4 address in the inet_aton / WHATWG grammar: one to
//     four dot-separated parts, each decimal, octal (leading 0) or hex (0x),
//     the last part filling the remaining bytes (127.1, 2130706433,
//     0x7f.1, 017700000001). Such a host that does not parse is refused as
//     ErrBadURL, and one that parses but is not written as a canonical
//     dotted quad is refused as ErrForbidden (Reported as ambiguous): the
//     address it means depends on which parser reads it.
//   - Everything else must be an ASCII DNS name made of letters, digits,
//     '-' and '_' labels; one trailing dot is dropped. Non-ASCII (IDN) names
//     must be given in their xn-- form.
//
// The returned error is a bare *Error (no Op, no URL).
func parseHost(h string) (host, error) {
	if h == "" {
		return host{}, newErr(ErrBadURL, "empty host")
	}
	if len(h) > maxHostLen+1 {
		return host{}, newErr(ErrBadURL, "host name longer than %d bytes", maxHostLen)
	}
	if strings.IndexByte(h, ':') >= 0 {
		ip, err := netip.ParseAddr(h)
		if err != nil || !ip.Is6() {
			return host{}, newErr(ErrBadURL, "invalid IPv6 host %q", h)
		}
		return host{ip: ip}, nil
	}
	name := strings.ToLower(h)
	if endsInNumber(name) {
		ip, ok := parseIPv4Loose(name)
		if !ok {
			return host{}, newErr(ErrBadURL, "invalid numeric host %q", h)
		}
		if ip.String() != name {
			reason := ClassifyAddr(ip)
			if reason == "" {
				reason = "ambiguous"
			}
			return host{ip: ip}, newErr(ErrForbidden, "non-canonical IPv4 host %q (means %s): %s", h, ip, reason)
		}
		return host{ip: ip}, nil
	}
	name = strings.TrimSuffix(name, ".")
	if len(name) > maxHostLen {
		return host{}, newErr(ErrBadURL, "host name longer than %d bytes", maxHostLen)
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" || len(label) > 63 {
			return host{}, newErr(ErrBadURL, "invalid host name %q", h)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				if c >= 0x80 {
					return host{}, newErr(ErrBadURL, "non-ASCII host name %q (use its xn-- form)", h)
				}
				return host{}, newErr(ErrBadURL, "invalid character %q in host name", c)
			}
		}
	}
	return host{name: name}, nil
}

// endsInNumber is the WHATWG URL "ends in a number" check: the last label
// (ignoring one trailing empty label) is all digits or a 0x hex number.
func endsInNumber(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return false
	}
	last := s[strings.LastIndexByte(s, '.')+1:]
	if last == "" {
		return false
	}
	if allDigits(last, 10) {
		return true
	}
	if len(last) >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') {
		return allDigits(last[2:], 16)
	}
	return false
}

// parseIPv4Loose parses the IPv4 forms inet_aton and the WHATWG URL parser
// accept. It reports false for anything they would both reject.
func parseIPv4Loose(s string) (netip.Addr, bool) {
	s = strings.TrimSuffix(s, ".")
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var nums [4]uint64
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	last := len(parts) - 1
	for i := 0; i < last; i++ {
		if nums[i] > 255 {
			return netip.Addr{}, false
		}
	}
	if nums[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	v := nums[last]
	for i := 0; i < last; i++ {
		v |= nums[i] << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// parseIPv4Number reads one part: 0x/0X hex (possibly empty digits, meaning
// 0, as WHATWG allows), a leading-0 octal, or decimal. Values that do not
// fit in 32 bits are rejected without overflowing.
func parseIPv4Number(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		base, p = 16, p[2:]
	case len(p) >= 2 && p[0] == '0':
		base, p = 8, p[1:]
	}
	var v uint64
	for i := 0; i < len(p); i++ {
		d, ok := digitValue(p[i])
		if !ok || d >= base {
			return 0, false
		}
		v = v*base + d
		if v > 1<<32 {
			return 0, false
		}
	}
	return v, true
}

func digitValue(c byte) (uint64, bool) {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0'), true
	case 'a' <= c && c <= 'f':
		return uint64(c-'a') + 10, true
	case 'A' <= c && c <= 'F':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}

func allDigits(s string, base uint64) bool {
	for i := 0; i < len(s); i++ {
		d, ok := digitValue(s[i])
		if !ok || d >= base {
			return false
		}
	}
	return true
}

// refusedNames are host names refused before any lookup: loopback aliases
// and cloud metadata names. Their addresses are refused anyway; refusing the
// names gives a clear reason and needs no resolver.
var refusedNames = [...]string{
	"localhost",
	"localhost.localdomain",
	"ip6-localhost",
	"ip6-loopback",
	"metadata",
	"metadata.google.internal",
	"metadata.goog",
	"instance-data",
	"instance-data.ec2.internal",
}

// refusedName reports why a DNS name is refused by default, or "".
func refusedName(name string) string {
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return "loopback name"
	}
	for _, n := range refusedNames {
		if name == n {
			if strings.Contains(n, "localhost") || strings.Contains(n, "loopback") {
				return "loopback name"
			}
			return "cloud metadata name"
		}
	}
	return ""
}
