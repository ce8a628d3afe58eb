package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte("listen: file:1\nworker: [grpc://a:1, grpc://b:2]\nlog_level: warn\nmax_items: 9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name        string
		args        []string
		env         map[string]string
		wantListen  string
		wantWorkers string
		wantLevel   string
		wantItems   int
	}{
		{"defaults", nil, nil, "127.0.0.1:8080", "", "info", 16},
		{"file", []string{"--config", cfg}, nil, "file:1", "grpc://a:1,grpc://b:2", "warn", 9},
		{"env over file", []string{"--config", cfg}, map[string]string{"MMGATE_LISTEN": "env:2", "MMGATE_WORKER": "grpc://c:3, grpc://d:4"}, "env:2", "grpc://c:3,grpc://d:4", "warn", 9},
		{"flag over env", []string{"--config", cfg, "--listen", "flag:3", "--worker", "unix:///w"}, map[string]string{"MMGATE_LISTEN": "env:2", "MMGATE_CONFIG": "/nonexistent"}, "flag:3", "unix:///w", "warn", 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &stdio{out: &bytes.Buffer{}, err: &bytes.Buffer{}}
			fs := newFlagSet(s, "x", "x")
			listen := fs.String("listen", "127.0.0.1:8080", "")
			var workers stringList
			fs.Var(&workers, "worker", "")
			items := fs.Int("max-items", 16, "")
			fs.String("config", "", "")
			lf := addLogFlags(fs)
			lookup := func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }
			if _, err := parseFlags(fs, c.args, lookup); err != nil {
				t.Fatalf("parse: %v (%s)", err, s.err)
			}
			if *listen != c.wantListen || workers.String() != c.wantWorkers || lf.level != c.wantLevel || *items != c.wantItems {
				t.Errorf("got listen=%q workers=%q level=%q items=%d", *listen, workers.String(), lf.level, *items)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"max_items": "many"}`), 0o600)
	for _, c := range []struct {
		args []string
		env  map[string]string
	}{
		{[]string{"--nope"}, nil},
		{[]string{"--max-items", "x"}, nil},
		{nil, map[string]string{"MMGATE_MAX_ITEMS": "x"}},
		{[]string{"--config", bad}, nil},
		{[]string{"--config", filepath.Join(dir, "missing.yaml")}, nil},
	} {
		s := &stdio{out: &bytes.Buffer{}, err: &bytes.Buffer{}}
		fs := newFlagSet(s, "x", "x")
		fs.Int("max-items", 16, "")
		fs.String("config", "", "")
		lookup := func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }
		_, err := parseFlags(fs, c.args, lookup)
		if err == nil || exitForParse(err) != 2 {
			t.Errorf("%v %v: err=%v", c.args, c.env, err)
		}
		if s.err.(*bytes.Buffer).Len() == 0 {
			t.Errorf("%v: no reason on stderr", c.args)
		}
	}
}

func TestDispatch(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := dispatch(context.Background(), &stdio{in: strings.NewReader(""), out: &out, err: &errb}, args)
		return code, out.String(), errb.String()
	}
	if code, _, _ := run(); code != 2 {
		t.Errorf("no args: exit %d", code)
	}
	if code, _, e := run("frobnicate"); code != 2 || !strings.Contains(e, "unknown subcommand") {
		t.Errorf("unknown: exit %d %q", code, e)
	}
	if code, out, _ := run("help"); code != 0 || !strings.Contains(out, "preprocess") {
		t.Errorf("help: exit %d %q", code, out)
	}
	code, out, _ := run("version")
	var v versionInfo
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.Go == "" || v.Version == "" {
		t.Errorf("version: exit %d %q", code, out)
	}
	if code, _, _ := run("version", "-h"); code != 0 {
		t.Errorf("version -h: exit %d", code)
	}
}
