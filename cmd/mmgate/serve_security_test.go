package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLoadAPIKeys(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "keys")
	os.WriteFile(good, []byte("# team a\nkey-one\n\n  key-two  \r\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("# nothing\n\n"), 0o600)
	cases := []struct {
		flags []string
		file  string
		want  []string
		err   string
	}{
		{nil, "", nil, ""},
		{[]string{"a", " ", "b"}, "", []string{"a", "b"}, ""},
		{[]string{"a"}, good, []string{"a", "key-one", "key-two"}, ""},
		{nil, empty, nil, "no key"},
		{nil, filepath.Join(dir, "missing"), nil, "no such file"},
	}
	for _, c := range cases {
		got, err := loadAPIKeys(c.flags, c.file)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v %s: err %v, want %q", c.flags, c.file, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%v %s: %q %v, want %q", c.flags, c.file, got, err, c.want)
		}
	}
}

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
		if cfg.workers[0].TLS == nil || cfg.workers[0].TLS.ServerName != "w.internal" || cfg.shmGID != 0 || len(cfg.apiKeys) != 1 {
			t.Errorf("%v: %+v", c.args, cfg)
		}
	}
}

func TestWorkerTLSFlags(t *testing.T) {
	if _, err := grpcServerTLS("", "", "ca.pem"); err == nil {
		t.Error("--tls-client-ca without a certificate was accepted")
	}
	if cfg, err := grpcServerTLS("", "", ""); cfg != nil || err != nil {
		t.Errorf("no TLS flags: %v %v", cfg, err)
	}
	if _, err := grpcServerTLS("/nonexistent.pem", "/nonexistent-key.pem", ""); err == nil {
		t.Error("missing certificate files were accepted")
	}
}
