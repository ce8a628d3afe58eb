package config

import (
	"bytes"
	"encoding/json"
	"flag"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// Every flag is in the effective configuration under its key (a list in
// the plural), typed; facts come first and replace the flag they resolve;
// secrets are counted, never shown.
func TestEffective(t *testing.T) {
	var errb bytes.Buffer
	fs := NewFlagSet(&errb, "x", "x")
	fs.String("listen", "127.0.0.1:8080", "")
	fs.Bool("no-exif", false, "")
	fs.Duration("fetch-timeout", 10*time.Second, "")
	fs.Float64("client-rate", 0, "")
	size := ByteSize(64 << 20)
	fs.Var(&size, "max-body-bytes", "")
	var hosts, proxies StringList
	fs.Var(&hosts, "fetch-allow-host", "")
	fs.Var(&proxies, "trusted-proxy", "")
	var keys Secrets
	fs.Var(&keys, "api-key", "")
	fs.String("model", "", "")
	fs.Func("opaque", "", func(string) error { return nil })
	args := []string{"--api-key", "sekret-1", "--api-key", "sekret-2", "--trusted-proxy", "10.0.0.0/8", "--max-body-bytes", "1KiB"}
	if _, err := Parse(fs, args, nil); err != nil {
		t.Fatal(err)
	}
	attrs := Effective(fs, slog.String("version", "v"), slog.String("model", "/tmp/demo"))
	if attrs[0].Key != "version" || attrs[1].Key != "model" {
		t.Errorf("facts not first: %v", attrs[:2])
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).LogAttrs(t.Context(), slog.LevelInfo, "m", attrs...)
	if strings.Contains(buf.String(), "sekret") {
		t.Errorf("a secret is in the log: %s", buf.String())
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"version": "v", "model": "/tmp/demo", "listen": "127.0.0.1:8080", "no_exif": false,
		"fetch_timeout": float64(10 * time.Second), "client_rate": 0.0, "max_body_bytes": 1024.0,
		"fetch_allow_hosts": nil, "trusted_proxies": []any{"10.0.0.0/8"}, "api_keys": 2.0, "opaque": "",
	}
	for k, v := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s missing", k)
			continue
		}
		if gb, _ := json.Marshal(g); string(gb) != mustJSON(t, v) {
			t.Errorf("%s = %s, want %s", k, gb, mustJSON(t, v))
		}
	}
	if n := len(got) - 3; n != len(want) { // time, level, msg
		t.Errorf("%d settings logged, want %d: %v", n, len(want), got)
	}
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := got[LogKey(f)]; !ok {
			t.Errorf("--%s is not in the log", f.Name)
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLogKey(t *testing.T) {
	var l StringList
	var n int
	for name, want := range map[string]string{"trusted-proxy": "trusted_proxies", "api-key": "api_keys", "file-root": "file_roots", "worker": "workers"} {
		if got := LogKey(&flag.Flag{Name: name, Value: &l}); got != want {
			t.Errorf("LogKey(--%s) = %q, want %q", name, got, want)
		}
	}
	if got := LogKey(&flag.Flag{Name: "max-in-flight", Value: (*intValue)(&n)}); got != "max_in_flight" {
		t.Errorf("LogKey(--max-in-flight) = %q", got)
	}
}

type intValue int

func (v *intValue) String() string   { return "" }
func (v *intValue) Set(string) error { return nil }

// A size prints in the largest unit that divides it and reads back.
func TestByteSize(t *testing.T) {
	for in, want := range map[string]int64{"64MiB": 64 << 20, "1000": 1000, "2 KB": 2000, "1GiB": 1 << 30, "7B": 7} {
		var b ByteSize
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
		}
		var back ByteSize
		if err := back.Set(b.String()); err != nil || back != b {
			t.Errorf("%q: String %q reads back as %d, %v", in, b.String(), back, err)
		}
	}
	for _, bad := range []string{"", "-1", "lots", "9999999999GiB"} {
		var b ByteSize
		if b.Set(bad) == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
}
