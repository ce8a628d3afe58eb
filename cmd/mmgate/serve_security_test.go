package main

import (
	"strings"
	"testing"
)

func TestServeSecurityFlags(t *testing.T) {
	cases := []struct {
		args []string
		err  string
	}{
		{[]string{"--metrics-auth"}, "--metrics-auth needs"},
		{[]string{"--tls-cert", "x.pem"}, "go together"},
		{[]string{"--worker-tls-key", "k.pem"}, "go together"},
		{[]string{"--worker-tls-ca", "/nonexistent/ca.pem"}, "--worker-tls-ca"},
		{[]string{"--shm-group", "-3"}, "--shm-group"},
		{[]string{"--api-key", "k", "--metrics-auth", "--shm-group", "0", "--worker-tls-server-name", "w.internal"}, ""},
	}
	for _, c := range cases {
		fs := newFlagSet(&stdio{err: &strings.Builder{}}, "serve", "")
		var f serveFlags
		f.register(fs)
		if _, err := parseFlags(fs, append([]string{"--worker", "grpcs://w:1"}, c.args...), nil); err != nil {
			t.Fatal(err)
		}
		cfg, err := f.validate()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: err %v, want %q", c.args, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", c.args, err)
			continue
		}
		if cfg.Workers.URLs[0].TLS == nil || cfg.Workers.URLs[0].TLS.ServerName != "w.internal" || cfg.Shm.GID != 0 || len(cfg.APIKeys) != 1 {
			t.Errorf("%v: %+v", c.args, cfg)
		}
	}
}
