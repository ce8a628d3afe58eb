package main

import (
	"bytes"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/server"
)

// The limit flags reach server.Options: defaults as documented, 0 turns a
// limit off, proxies as ranges, and bad values are usage errors.
func TestLimitFlags(t *testing.T) {
	parse := func(args ...string) (server.Options, error) {
		s := &stdio{out: &bytes.Buffer{}, err: &bytes.Buffer{}}
		fs := newFlagSet(s, "serve", "serve")
		var f limitFlags
		f.register(fs)
		var o server.Options
		if _, err := parseFlags(fs, args, func(k string) (string, bool) {
			if k == "MMGATE_CLIENT_RATE" {
				return "2.5", true
			}
			return "", false
		}); err != nil {
			return o, err
		}
		return o, f.apply(&o)
	}
	o, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	if o.BodyReadTimeout != 30*time.Second || o.BodyMinRate != 8<<10 || o.BodyRateGrace != 10*time.Second || o.QueueTimeout != 0 ||
		o.ClientStallTimeout != time.Minute || o.MaxConnections != 10000 || o.HeaderTimeout != 10*time.Second ||
		o.MaxHeaderBytes != 64<<10 || o.SendBuffer != 256<<10 || o.MaxUploads != 1024 || o.MaxUploadBytes != 1<<30 || o.Clients.Rate != 2.5 {
		t.Errorf("defaults: %+v", o)
	}
	o, err = parse("--body-read-timeout", "0", "--body-min-rate", "0", "--client-stall-timeout", "0", "--max-connections", "0",
		"--send-buffer-bytes", "0", "--queue-timeout", "2s", "--client-max-in-flight", "3", "--client-burst", "7",
		"--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "192.0.2.7", "--trusted-proxy", "10.1.2.3/16")
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"), netip.MustParsePrefix("10.1.0.0/16")}
	if o.BodyReadTimeout >= 0 || o.BodyMinRate >= 0 || o.ClientStallTimeout >= 0 || o.MaxConnections >= 0 || o.SendBuffer >= 0 ||
		o.QueueTimeout != 2*time.Second || o.Clients.MaxInFlight != 3 || o.Clients.Burst != 7 || !slices.Equal(o.TrustedProxies, want) {
		t.Errorf("turned off and set: %+v", o)
	}
	for _, bad := range [][]string{
		{"--trusted-proxy", "not-an-address"}, {"--queue-timeout", "-1s"}, {"--header-timeout", "0"}, {"--max-uploads", "0"}, {"--body-min-rate", "fast"},
		{"--client-rate", "-1"}, {"--client-rate", "NaN"}, {"--client-burst", "-2"},
	} {
		if _, err := parse(bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
