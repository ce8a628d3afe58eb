package fetch

import (
	"context"
	"net/netip"
	"net/url"
	"testing"
)

func TestLiteralHostsRefused(t *testing.T) {
	f, r, d := newTestFetcher(t, Policy{})
	forbidden := []string{
		"http://127.0.0.1/",
		"http://127.0.0.1:8080/x.png",
		"http://127.1/",
		"http://127.0.1/",
		"http://2130706433/",
		"http://0x7f.1/",
		"http://0x7f000001/",
		"http://0X7F000001/",
		"http://0x7f.0x0.0x0.0x1/",
		"http://017700000001/",
		"http://0177.0.0.1/",
		"http://0177.1/",
		"http://127.000.000.001/",
		"http://127.0.0.1./",
		"http://127.1./",
		"http://[::1]/",
		"http://[::1]:80/",
		"http://[0:0:0:0:0:0:0:1]/",
		"http://[::ffff:127.0.0.1]/",
		"http://[::ffff:7f00:1]/",
		"http://[0:0:0:0:0:ffff:127.0.0.1]/",
		"http://[::127.0.0.1]/",
		"http://[::]/",
		"http://localhost/",
		"http://LOCALHOST/",
		"http://localhost./",
		"http://localhost:8080/",
		"http://foo.localhost/",
		"http://localhost.localdomain/",
		"http://0/",
		"http://0.0.0.0/",
		"http://00000/",
		"http://0x/",
		"http://10.0.0.1/",
		"http://012.0.0.1/",
		"http://167772161/",
		"http://172.16.0.1/",
		"http://172.31.255.255/",
		"http://192.168.1.1/",
		"http://0300.0250.0.1/",
		"http://0xc0a80001/",
		"http://100.64.0.1/",
		"http://100.127.255.255/",
		"http://169.254.169.254/latest/meta-data/",
		"http://169.254.43518/",
		"http://0xa9fea9fe/",
		"http://2852039166/",
		"http://[::ffff:169.254.169.254]/",
		"http://[::ffff:a9fe:a9fe]/",
		"http://[fd00:ec2::254]/",
		"http://100.100.100.200/",
		"http://metadata.google.internal/",
		"http://METADATA.GOOGLE.INTERNAL./",
		"http://metadata/",
		"http://[fe80::1]/",
		"http://[fe80::1%25eth0]/",
		"http://[fc00::1]/",
		"http://[fd12:3456:789a::1]/",
		"http://[ff02::1]/",
		"http://224.0.0.1/",
		"http://239.255.255.250/",
		"http://255.255.255.255/",
		"http://4294967295/",
		"http://240.0.0.1/",
		"http://[64:ff9b::7f00:1]/",
		"http://[64:ff9b::127.0.0.1]/",
		"http://[64:ff9b::a9fe:a9fe]/",
		"http://[64:ff9b::10.0.0.1]/",
		"http://[2002:7f00:1::]/",
		"http://[2002:c0a8:101::1]/",
		"http://[::ffff:8.8.8.8]/", // public, but spelled as mapped IPv6
		"http://0x08080808/",       // public, but ambiguous spelling
		"http://8.8.2056/",         // public, but ambiguous spelling
		"http://[2001:db8::1]/",
		"http://[100::1]/",
		"http://192.0.0.192/",
		"http://198.18.0.1/",
		"https://127.0.0.1/",
		"HTTP://127.0.0.1/",
		"ftp://example.com/x.png",
		"gopher://example.com/",
		"javascript:alert(1)",
		"file:///etc/passwd",
	}
	for _, u := range forbidden {
		t.Run(u, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), u)
			wantKind(t, err, ErrForbidden)
		})
	}
	bad := []string{
		"http://256.0.0.1/",
		"http://1.2.3.4.5/",
		"http://1.2.3.08/",
		"http://0x100000000/",
		"http://4294967296/",
		"http://1.256.0.1/",
		"http://example.123/",
		"http:///x.png",
		"http://[::1/",
		"http://exa mple.com/",
		"http://user:pass@example.com/",
		"http://127.0.0.1:80@example.com/",
		"http://example.com:0/",
		"http://exa..mple.com/",
		"http://bücher.example/",
		"http://a%2fb.example/",
		"http://%6c%6fcalhost/", // Go's parser refuses ASCII escapes in hosts
		"http://%31%32%37.0.0.1/",
		"http://%C3%BCber.example/", // decodes to a non-ASCII name
		"http://１２７.0.0.1/",         // full-width digits (IDNA would map them to 127)
		"http://ｌｏｃａｌｈｏｓｔ/",
		"http://127.0.0.1%00/",
		"http:example.com",
		"//example.com/x.png",
		"example.com/x.png",
		"",
	}
	for _, u := range bad {
		t.Run("bad "+u, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), u)
			wantKind(t, err, ErrBadURL)
		})
	}
	if d.count() != 0 || r.total() != 0 {
		t.Fatalf("literal checks dialled %v / looked up %d names", d.addrs(), r.total())
	}
}

// TestPublicHostsPass checks that the literal check lets ordinary public URLs
// through (without fetching them).
func TestPublicHostsPass(t *testing.T) {
	f, _, _ := newTestFetcher(t, Policy{})
	for _, u := range []string{
		"http://example.com/x.png",
		"https://EXAMPLE.com./x.png",
		"https://cdn.example.com:8443/a/b.jpg?sig=1",
		"http://8.8.8.8/",
		"http://1.1.1.1:8080/",
		"http://[2606:4700:4700::1111]/",
		"http://[64:ff9b::808:808]/",
		"http://xn--bcher-kva.example/",
		"http://under_score.example/",
		"http://123.example/",
		"http://1e100.net/",
		"http://100.63.255.255/",
		"http://100.128.0.0/",
		"http://172.15.255.255/",
		"http://172.32.0.0/",
		"http://169.253.0.1/",
	} {
		pu, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.checkURL(pu); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}

func TestParseIPv4Loose(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = not an address
	}{
		{"127.0.0.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"0x7F000001", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"0177.0.0.01", "127.0.0.1"},
		{"127.0.0.1.", "127.0.0.1"},
		{"0x", "0.0.0.0"},
		{"0", "0.0.0.0"},
		{"1.2.65535", "1.2.255.255"},
		{"1.16777215", "1.255.255.255"},
		{"4294967295", "255.255.255.255"},
		{"4294967296", ""},
		{"1.2.65536", ""},
		{"256.1.1.1", ""},
		{"1.2.3.4.5", ""},
		{"08", ""},
		{"0x1g", ""},
		{"1..2", ""},
		{".1", ""},
		{"", ""},
		{"99999999999999999999999", ""},
		{"0x00000000000000000000007f.1", "127.0.0.1"},
	}
	for _, tt := range tests {
		ip, ok := parseIPv4Loose(tt.in)
		got := ""
		if ok {
			got = ip.String()
		}
		if got != tt.want {
			t.Errorf("parseIPv4Loose(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestClassifyAddr(t *testing.T) {
	tests := []struct {
		ip     string
		public bool
	}{
		{"8.8.8.8", true},
		{"93.184.216.34", true},
		{"100.63.255.255", true},
		{"100.128.0.1", true},
		{"2606:4700:4700::1111", true},
		{"64:ff9b::808:808", true},
		{"2a00:1450:4001:80e::200e", true},
		{"127.0.0.1", false},
		{"127.255.255.254", false},
		{"0.1.2.3", false},
		{"10.255.0.1", false},
		{"100.64.0.0", false},
		{"169.254.169.254", false},
		{"172.16.5.4", false},
		{"192.168.0.1", false},
		{"192.0.0.170", false},
		{"224.0.0.251", false},
		{"255.255.255.255", false},
		{"::", false},
		{"::1", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:8.8.8.8", false},
		{"::8.8.8.8", false},
		{"::ffff:0:808:808", false},
		{"64:ff9b::7f00:1", false},
		{"64:ff9b::a9fe:a9fe", false},
		{"64:ff9b:1::1", false},
		{"2002:0808:0808::1", false},
		{"2002:7f00:0001::1", false},
		{"2001::1", false},
		{"2001:db8::1", false},
		{"fc00::1", false},
		{"fd00:ec2::254", false},
		{"fe80::1%eth0", false},
		{"fec0::1", false},
		{"ff02::1", false},
		{"100::1", false},
	}
	for _, tt := range tests {
		reason := ClassifyAddr(netip.MustParseAddr(tt.ip))
		if (reason == "") != tt.public {
			t.Errorf("ClassifyAddr(%s) = %q, want public=%v", tt.ip, reason, tt.public)
		}
	}
	for _, ip := range []string{"169.254.169.254", "fd00:ec2::254", "100.100.100.200", "::ffff:169.254.169.254"} {
		if r := ClassifyAddr(netip.MustParseAddr(ip)); r != "cloud metadata" {
			t.Errorf("ClassifyAddr(%s) = %q, want cloud metadata", ip, r)
		}
	}
	if ClassifyAddr(netip.Addr{}) == "" {
		t.Error("invalid address classified public")
	}
}

func TestPolicyValidation(t *testing.T) {
	bad := []Policy{
		{Schemes: []string{"ftp"}},
		{MaxBytes: -1},
		{Timeout: -1},
		{AllowedHosts: []string{"exa mple"}},
		{AllowedHosts: []string{"*."}},
		{AllowedCIDRs: []netip.Prefix{{}}},
		{FileRoots: []string{"relative/dir"}},
		{FileRoots: []string{"/nonexistent/mmgate/root"}},
	}
	for i, p := range bad {
		if _, err := New(p, Options{}); err == nil {
			t.Errorf("policy %d: New accepted %+v", i, p)
		}
	}
	f, err := New(Policy{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.MaxBytes() != DefaultMaxBytes || f.pol.timeout != DefaultTimeout || f.pol.maxRedirects != DefaultMaxRedirects {
		t.Fatalf("defaults: %+v", f.pol)
	}
	if !f.pol.schemes["data"] || !f.pol.schemes["http"] || !f.pol.schemes["https"] || len(f.pol.roots) != 0 {
		t.Fatalf("default schemes %v", f.pol.schemes)
	}
	// No scheme at all.
	f2, _, _ := newTestFetcher(t, Policy{Schemes: []string{}})
	_, err = f2.Fetch(context.Background(), "data:,x")
	wantKind(t, err, ErrForbidden)
}
