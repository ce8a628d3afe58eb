package config

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mmgate/mmgate/engine"
)

// FuzzConfigFile: any config file and environment value either sets the
// flags or is refused with a reason on the FlagSet's output; nothing
// panics.
func FuzzConfigFile(f *testing.F) {
	f.Add([]byte("listen: a:1\nworker: [grpc://a:1, grpc://b:2]\nmax_body_bytes: 1MiB\n"), "grpc://c:3, grpc://d:4")
	f.Add([]byte(`{"max_items": "many", "api_key": ["k1", "k2"]}`), "")
	f.Add([]byte("workers:\n  - url: unix:///w\n    mm_transport: shm\n"), ",,")
	f.Add([]byte("timeout: 10s\nno_exif: yes\nmax_items: [1, 2]\n"), "x")
	f.Add([]byte("- just\n- a list\n"), "1KiB")
	f.Fuzz(func(t *testing.T, file []byte, env string) {
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(path, file, 0o600); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		fs := NewFlagSet(&out, "x", "x")
		fs.String("listen", "", "")
		fs.Int("max-items", 16, "")
		fs.Bool("no-exif", false, "")
		fs.Duration("timeout", time.Second, "")
		var size ByteSize
		fs.Var(&size, "max-body-bytes", "")
		var workers StringList
		fs.Var(&workers, "worker", "")
		var keys Secrets
		fs.Var(&keys, "api-key", "")
		fs.String("config", "", "")
		lookup := func(k string) (string, bool) { return env, k == "MMGATE_WORKER" || k == "MMGATE_MAX_BODY_BYTES" }
		_, err := Parse(fs, []string{"--config", path}, lookup)
		if err != nil {
			if out.Len() == 0 || ExitStatus(err) != 2 {
				t.Fatalf("refused without a reason or with status %d: %v", ExitStatus(err), err)
			}
			return
		}
		Effective(fs)
		if _, err := Workers(path, engine.WorkerConfig{}); err != nil && err.Error() == "" {
			t.Fatal("an error without a message")
		}
	})
}

// FuzzByteSize: a size that parses prints as a size that parses back to
// the same number of bytes.
func FuzzByteSize(f *testing.F) {
	for _, s := range []string{"64MiB", "1000", "2 KB", "1GiB", "7B", "-1", "9223372036854775807", "8EiB", " 3 MB "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b ByteSize
		if b.Set(s) != nil {
			return
		}
		if b < 0 {
			t.Fatalf("%q: negative size %d", s, b)
		}
		var back ByteSize
		if err := back.Set(b.String()); err != nil || back != b {
			t.Fatalf("%q = %d prints as %q, which reads back as %d, %v", s, b, b.String(), back, err)
		}
	})
}
