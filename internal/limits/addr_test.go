package limits

import (
	"net/netip"
	"testing"
)

func TestClientAddr(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	cases := []struct {
		remote string
		xff    []string
		want   string
	}{
		{"192.0.2.7:5555", nil, "192.0.2.7"},
		{"192.0.2.7:5555", []string{"1.2.3.4"}, "192.0.2.7"}, // not from a trusted proxy
		{"10.1.1.1:80", nil, "10.1.1.1"},
		{"10.1.1.1:80", []string{"1.2.3.4"}, "1.2.3.4"},
		{"10.1.1.1:80", []string{"6.6.6.6, 1.2.3.4"}, "1.2.3.4"},            // the left-most entries are the client's word
		{"10.1.1.1:80", []string{"1.2.3.4, 10.2.2.2"}, "1.2.3.4"},           // through two proxies
		{"10.1.1.1:80", []string{"6.6.6.6", "1.2.3.4,10.9.9.9"}, "1.2.3.4"}, // several header lines
		{"10.1.1.1:80", []string{"10.2.2.2, 10.3.3.3"}, "10.1.1.1"},         // only proxies
		{"10.1.1.1:80", []string{"garbage, 1.2.3.4"}, "1.2.3.4"},
		{"10.1.1.1:80", []string{"1.2.3.4, garbage"}, "10.1.1.1"}, // unusable: the proxy's address
		{"10.1.1.1:80", []string{"[2001:db8::1]:443"}, "2001:db8::1"},
		{"10.1.1.1:80", []string{"1.2.3.4:8080"}, "1.2.3.4"},
		{"10.1.1.1:80", []string{"::ffff:1.2.3.4"}, "1.2.3.4"},
		{"[::1]:80", []string{"2001:db8::5"}, "2001:db8::5"},
		{"[::ffff:10.1.1.1]:80", []string{"1.2.3.4"}, "1.2.3.4"},
		{"@", nil, "local"},
		{"", []string{"1.2.3.4"}, "local"},
	}
	for _, c := range cases {
		if got := ClientAddr(c.remote, c.xff, trusted); got != c.want {
			t.Errorf("ClientAddr(%q, %q) = %q, want %q", c.remote, c.xff, got, c.want)
		}
	}
	if got := ClientAddr("10.1.1.1:80", []string{"1.2.3.4"}, nil); got != "10.1.1.1" {
		t.Errorf("no trusted proxies: %q", got)
	}
}

func TestClientKey(t *testing.T) {
	for in, want := range map[string]string{
		"1.2.3.4":              "1.2.3.4",
		"2001:db8:1:2:3:4:5:6": "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1": "2001:db8:1:2::/64",
		"::ffff:1.2.3.4":       "::ffff:1.2.3.4",
		"local":                "local",
	} {
		if got := ClientKey(in); got != want {
			t.Errorf("ClientKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzClientAddr: any header gives either the peer's address or a valid
// address that is not a trusted proxy, and never panics.
func FuzzClientAddr(f *testing.F) {
	for _, s := range []string{"1.2.3.4", "6.6.6.6, 1.2.3.4", "10.0.0.1,,", "[::1]:80, ::ffff:10.0.0.1", ",", " , 1.1.1.1 ", "2001:db8::1%eth0"} {
		f.Add(s)
	}
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	f.Fuzz(func(t *testing.T, xff string) {
		got := ClientAddr("10.0.0.9:1234", []string{xff}, trusted)
		if got == "10.0.0.9" {
			return
		}
		a, err := netip.ParseAddr(got)
		if err != nil || trusted[0].Contains(a.Unmap()) {
			t.Fatalf("ClientAddr(%q) = %q", xff, got)
		}
		ClientKey(got)
	})
}
