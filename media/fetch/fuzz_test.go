package fetch

import (
	"bytes"
	"encoding/base64"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// FuzzDataURL checks that parsing and decoding never panic, never exceed the
// cap, and that base64 payloads decode exactly as encoding/base64 decodes
// their normalized form.
func FuzzDataURL(f *testing.F) {
	const max = 1 << 12
	f.Fuzz(func(t *testing.T, raw string) {
		d, err := ParseDataURL(raw)
		if err != nil {
			if !errors.Is(err, ErrBadURL) {
				t.Fatalf("parse error %v is not ErrBadURL", err)
			}
			return
		}
		got, err := d.Decode(max)
		if err == nil && len(got) > max {
			t.Fatalf("decoded %d bytes over the cap %d", len(got), max)
		}
		if err != nil && !errors.Is(err, ErrBadURL) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("decode error %v has no kind", err)
		}
		if !d.Base64 {
			return
		}
		want, ok := referenceBase64(d.payload)
		switch {
		case !ok && err == nil:
			t.Fatalf("payload %q: decoded %x, reference refuses it", d.payload, got)
		case ok && len(want) <= max && err != nil:
			t.Fatalf("payload %q: %v, reference decodes %x", d.payload, err, want)
		case ok && len(want) > max && !errors.Is(err, ErrTooLarge):
			t.Fatalf("payload %q: %v, want ErrTooLarge", d.payload, err)
		case ok && err == nil && !bytes.Equal(got, want):
			t.Fatalf("payload %q: decoded %x, reference %x", d.payload, got, want)
		}
	})
}

// referenceBase64 is the documented payload grammar written the slow way:
// percent-decode, drop ASCII whitespace, map the URL-safe alphabet to the
// standard one, check the padding, then let encoding/base64 (which ignores
// unused low bits unless Strict) decode the unpadded rest.
func referenceBase64(p string) ([]byte, bool) {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '%' {
			if i+2 >= len(p) {
				return nil, false
			}
			v, err := strconv.ParseUint(p[i+1:i+3], 16, 8)
			if err != nil || strings.ContainsAny(p[i+1:i+3], "+-") {
				return nil, false
			}
			c = byte(v)
			i += 2
		}
		if strings.IndexByte(" \t\n\r\f", c) >= 0 {
			continue
		}
		b.WriteByte(c)
	}
	s := b.String()
	body := strings.TrimRight(s, "=")
	pads := len(s) - len(body)
	if strings.ContainsAny(body, "=") || pads > 2 || len(body)%4 == 1 {
		return nil, false
	}
	if pads > 0 && (len(body)+pads)%4 != 0 {
		return nil, false
	}
	if strings.ContainsAny(body, "\r\n") {
		return nil, false // unreachable: stripped above; encoding/base64 would skip them
	}
	body = strings.NewReplacer("-", "+", "_", "/").Replace(body)
	out, err := base64.RawStdEncoding.DecodeString(body)
	if err != nil {
		return nil, false
	}
	return out, true
}

// FuzzHost checks that no host string makes the checks panic, and that any
// host which some parser (netip, net.ParseIP, an independent inet_aton) reads
// as a refused address is refused, both by the host check and through a URL.
func FuzzHost(f *testing.F) {
	pol, err := Policy{}.resolve()
	if err != nil {
		f.Fatal(err)
	}
	fe := &Fetcher{pol: pol}
	f.Fuzz(func(t *testing.T, h string) {
		_, hostErr := pol.checkHost(h)
		if ip, ok := forbiddenReading(h); ok && hostErr == nil {
			t.Fatalf("host %q reads as %s but passed the check", h, ip)
		}
		u, err := url.Parse("http://" + h + "/")
		if err != nil || u.Host != h {
			return
		}
		urlErr := fe.checkURL(u)
		if ip, ok := forbiddenReading(u.Hostname()); ok && urlErr == nil {
			t.Fatalf("URL host %q reads as %s but passed the check", h, ip)
		}
		if urlErr != nil && !errors.Is(urlErr, ErrForbidden) && !errors.Is(urlErr, ErrBadURL) {
			t.Fatalf("URL check error %v has no kind", urlErr)
		}
	})
}

// forbiddenReading returns a refused address that some parser reads h as.
func forbiddenReading(h string) (netip.Addr, bool) {
	cands := []string{h, strings.TrimSuffix(h, "."), strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")}
	for _, c := range cands {
		if ip, err := netip.ParseAddr(c); err == nil && ClassifyAddr(ip) != "" {
			return ip, true
		}
		if ip := net.ParseIP(c); ip != nil {
			a, ok := netip.AddrFromSlice(ip)
			if !strings.Contains(c, ":") {
				a = a.Unmap() // net.IP keeps IPv4 in 16 bytes
			}
			if ok && ClassifyAddr(a) != "" {
				return a, true
			}
		}
		if ip, ok := inetAton(c); ok && ClassifyAddr(ip) != "" {
			return ip, true
		}
		if strings.EqualFold(c, "localhost") {
			return netip.IPv6Loopback(), true
		}
	}
	return netip.Addr{}, false
}

// inetAton is an independent reading of the C library's inet_aton grammar
// (1 to 4 parts; 0x hex, leading-0 octal, decimal; the last part fills the
// remaining bytes), built on strconv.
func inetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		lp := strings.ToLower(p)
		if p == "" || strings.ContainsAny(p, "_+-") || strings.HasPrefix(lp, "0o") || strings.HasPrefix(lp, "0b") {
			return netip.Addr{}, false
		}
		v, err := strconv.ParseUint(p, 0, 32) // 0x.., 0.. octal, decimal
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	n := len(vals)
	for _, v := range vals[:n-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
	}
	if vals[n-1] >= 1<<(8*(5-n)) {
		return netip.Addr{}, false
	}
	var a uint64 = vals[n-1]
	for i, v := range vals[:n-1] {
		a |= v << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)}), true
}

func TestInetAtonReference(t *testing.T) {
	for in, want := range map[string]string{
		"127.1": "127.0.0.1", "2130706433": "127.0.0.1", "0x7f.1": "127.0.0.1",
		"017700000001": "127.0.0.1", "10.0.0.1": "10.0.0.1", "1.2.65535": "1.2.255.255",
	} {
		if ip, ok := inetAton(in); !ok || ip.String() != want {
			t.Errorf("inetAton(%q) = %v %v, want %s", in, ip, ok, want)
		}
	}
}
