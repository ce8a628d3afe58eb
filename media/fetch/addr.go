package fetch

import "net/netip"

// rangeRule names a refused address range.
type rangeRule struct {
	prefix netip.Prefix
	reason string
}

// metadataAddrs are the instance-metadata endpoints of the major clouds.
// Their ranges are refused anyway; listing them gives a clearer reason.
var metadataAddrs = [...]netip.Addr{
	netip.AddrFrom4([4]byte{169, 254, 169, 254}),                           // AWS, GCP, Azure, OCI, DigitalOcean, OpenStack
	netip.AddrFrom4([4]byte{169, 254, 170, 2}),                             // AWS ECS task metadata
	netip.AddrFrom4([4]byte{169, 254, 169, 123}),                           // AWS time sync
	netip.AddrFrom4([4]byte{100, 100, 100, 200}),                           // Alibaba Cloud
	netip.AddrFrom4([4]byte{192, 0, 0, 192}),                               // Oracle Cloud (classic)
	netip.AddrFrom16([16]byte{0xfd, 0x00, 0x0e, 0xc2, 14: 0x02, 15: 0x54}), // AWS IMDS over IPv6
	netip.AddrFrom16([16]byte{0xfd, 0x00, 0x0e, 0xc2, 14: 0x00, 15: 0x23}), // AWS NTP over IPv6
}

// v4Rules are the IPv4 ranges that are not public unicast (IANA special-purpose
// registry, RFC 6890 and successors).
var v4Rules = [...]rangeRule{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified (this network)"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private (RFC 1918)"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (CGNAT)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private (RFC 1918)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private (RFC 1918)"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("255.255.255.255/32"), "broadcast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
}

// v6Rules are refused ranges inside 2000::/3 (global unicast); every IPv6
// address outside 2000::/3 is refused except the NAT64 well-known prefix
// carrying a public IPv4 address.
var v6Rules = [...]rangeRule{
	{netip.MustParsePrefix("2001::/32"), "Teredo"},
	{netip.MustParsePrefix("2001:2::/48"), "benchmarking"},
	{netip.MustParsePrefix("2001:10::/28"), "ORCHID"},
	{netip.MustParsePrefix("2001:20::/28"), "ORCHIDv2"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
}

var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	globalUnicast  = netip.MustParsePrefix("2000::/3")
)

// ClassifyAddr returns "" when ip is a public unicast address that the fetch
// policy lets a URL reach by default, and otherwise why it is refused
// ("loopback", "private (RFC 1918)", "cloud metadata", …).
//
// IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses,
// the NAT64 well-known prefix (64:ff9b::/96) and 6to4 (2002::/16) are judged
// by the IPv4 address they embed; the mapped, compatible and 6to4 forms are
// refused even for a public IPv4 address, since a client has no reason to
// spell a public address that way. A zone (fe80::1%eth0) is ignored.
func ClassifyAddr(ip netip.Addr) string {
	if !ip.IsValid() {
		return "invalid address"
	}
	ip = ip.WithZone("")
	for _, m := range metadataAddrs {
		if ip == m || (ip.Is4In6() && ip.Unmap() == m) {
			return "cloud metadata"
		}
	}
	if ip.Is4In6() {
		if r := classify4(ip.Unmap()); r != "" {
			return r + " (IPv4-mapped)"
		}
		return "IPv4-mapped IPv6"
	}
	if ip.Is4() {
		return classify4(ip)
	}
	b := ip.As16()
	switch {
	case ip == netip.IPv6Unspecified():
		return "unspecified"
	case ip == netip.IPv6Loopback():
		return "loopback"
	case isZero(b[:12]): // ::a.b.c.d, deprecated IPv4-compatible
		if r := classify4(netip.AddrFrom4([4]byte(b[12:]))); r != "" {
			return r + " (IPv4-compatible)"
		}
		return "IPv4-compatible IPv6 (deprecated)"
	case nat64WellKnown.Contains(ip):
		if r := classify4(netip.AddrFrom4([4]byte(b[12:]))); r != "" {
			return r + " (NAT64)"
		}
		return ""
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsMulticast():
		return "multicast"
	case b[0]&0xfe == 0xfc:
		return "unique-local"
	case b[0] == 0xfe && b[1]&0xc0 == 0xc0:
		return "site-local (deprecated)"
	case sixToFour.Contains(ip):
		if r := classify4(netip.AddrFrom4([4]byte(b[2:6]))); r != "" {
			return r + " (6to4)"
		}
		return "6to4"
	case !globalUnicast.Contains(ip):
		return "reserved IPv6"
	}
	for _, r := range v6Rules {
		if r.prefix.Contains(ip) {
			return r.reason
		}
	}
	return ""
}

func classify4(ip netip.Addr) string {
	for _, m := range metadataAddrs {
		if ip == m {
			return "cloud metadata"
		}
	}
	for _, r := range v4Rules {
		if r.prefix.Contains(ip) {
			return r.reason
		}
	}
	return ""
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
