package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/shm"
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
			var errb bytes.Buffer
			fs := NewFlagSet(&errb, "x", "x")
			listen := fs.String("listen", "127.0.0.1:8080", "")
			var workers StringList
			fs.Var(&workers, "worker", "")
			items := fs.Int("max-items", 16, "")
			fs.String("config", "", "")
			var lf LogFlags
			lf.Register(fs)
			lookup := func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }
			if _, err := Parse(fs, c.args, lookup); err != nil {
				t.Fatalf("parse: %v (%s)", err, errb.String())
			}
			if *listen != c.wantListen || workers.String() != c.wantWorkers || lf.Level != c.wantLevel || *items != c.wantItems {
				t.Errorf("got listen=%q workers=%q level=%q items=%d", *listen, workers.String(), lf.Level, *items)
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
		var errb bytes.Buffer
		fs := NewFlagSet(&errb, "x", "x")
		fs.Int("max-items", 16, "")
		fs.String("config", "", "")
		lookup := func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }
		_, err := Parse(fs, c.args, lookup)
		if err == nil || ExitStatus(err) != 2 {
			t.Errorf("%v %v: err=%v", c.args, c.env, err)
		}
		if errb.Len() == 0 {
			t.Errorf("%v: no reason on stderr", c.args)
		}
	}
}

// TestGivenIntFromEnv: a --concurrency from the environment counts as
// given, so --report then runs that one level.
func TestGivenIntFromEnv(t *testing.T) {
	var errb bytes.Buffer
	fs := NewFlagSet(&errb, "x", "x")
	c := GivenInt{N: 8}
	fs.Var(&c, "concurrency", "")
	if _, err := Parse(fs, nil, func(k string) (string, bool) { return "5", k == "MMGATE_CONCURRENCY" }); err != nil {
		t.Fatal(err)
	}
	if c.N != 5 || !c.Given {
		t.Errorf("%+v", c)
	}
}

func TestConfigWorkers(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	doc := "workers:\n" +
		"  - url: unix:///run/w0.sock\n    mm_transport: shm\n    mm_shm_min_bytes: 1KiB\n    encoder_dtype: float16\n    runtime: tokenspeed\n" +
		"  - url: grpc://10.0.0.7:50051\n"
	if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Workers(cfg, engine.WorkerConfig{Transport: shm.ModeAuto, ShmMinBytes: 65536, MaxMessageSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.WorkerConfig{
		{URL: "unix:///run/w0.sock", Transport: shm.ModeShm, ShmMinBytes: 1024, EncoderDType: "float16", Runtime: "tokenspeed", MaxMessageSize: 1 << 20},
		{URL: "grpc://10.0.0.7:50051", Transport: shm.ModeAuto, ShmMinBytes: 65536, MaxMessageSize: 1 << 20},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("workers\n got %+v\nwant %+v", got, want)
	}
}

// Each bad entry of the workers list is named in the error.
func TestConfigWorkersErrors(t *testing.T) {
	dir := t.TempDir()
	for doc, want := range map[string]string{
		"workers:\n  - 3\n": "workers[0] is not an object",
		"workers:\n  - url: grpc://a:1\n  - mm_transport: shm\n":      "workers[1] has no url",
		"workers:\n  - url: grpc://a:1\n    mm_transport: carrier\n":  "workers[0].mm_transport: ",
		"workers:\n  - url: grpc://a:1\n    mm_shm_min_bytes: lots\n": "workers[0].mm_shm_min_bytes: ",
	} {
		cfg := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Workers(cfg, engine.WorkerConfig{})
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte("config "+cfg+": "+want)) {
			t.Errorf("%q: err %v, want %q", doc, err, want)
		}
	}
}
