package shm

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func newTestReader(t *testing.T, dir string, o ReaderOptions) *Reader {
	t.Helper()
	o.Dir = dir
	r, err := NewReader(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func shmTensor(name string, offset, nbytes uint64, dtype string, shape ...uint32) Wire {
	return Wire{Shape: shape, DType: dtype, Kind: ShmPayload, Shm: Handle{Name: name, Offset: offset, NBytes: nbytes}}
}

func exists(path string) bool { _, err := os.Lstat(path); return err == nil }

func TestReaderReadsAndUnlinks(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 3*4096+100)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, copyMode := range []bool{false, true} {
		for _, off := range []uint64{0, 4096, 13} {
			name := "smg-tokenspeed-x"
			os.WriteFile(filepath.Join(dir, name), data, 0o600)
			r := newTestReader(t, dir, ReaderOptions{Copy: copyMode})
			n := uint64(len(data)) - off
			n -= n % 4
			v, err := r.Read(shmTensor(name, off, n, "uint32", uint32(n/4)))
			if err != nil {
				t.Fatalf("copy=%v off=%d: %v", copyMode, off, err)
			}
			if !bytes.Equal(v.Data, data[off:off+n]) || v.Path != PathShm {
				t.Fatalf("copy=%v off=%d: wrong bytes", copyMode, off)
			}
			if exists(filepath.Join(dir, name)) {
				t.Fatal("not unlinked after read")
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// KeepFiles leaves it; ReadInto copies into the given buffer.
	name := "mmgate-keep"
	os.WriteFile(filepath.Join(dir, name), data[:64], 0o600)
	r := newTestReader(t, dir, ReaderOptions{KeepFiles: true})
	buf := make([]byte, 64)
	tt, err := r.ReadInto(shmTensor(name, 0, 64, "int64", 2, 4), buf)
	if err != nil || &tt.Data[0] != &buf[0] || !bytes.Equal(tt.Data, data[:64]) {
		t.Fatalf("ReadInto: %v", err)
	}
	if !exists(filepath.Join(dir, name)) {
		t.Fatal("KeepFiles unlinked")
	}
	// Inline payloads.
	v, err := r.Read(inlineWire([]byte{1, 2, 3, 4}, "bfloat16", 2))
	if err != nil || v.Path != PathInline || len(v.Data) != 4 {
		t.Fatalf("inline: %v", err)
	}
	if r.NamespaceID() == "" {
		t.Fatal("no namespace id")
	}
}

// Each hostile handle is refused with ErrBadHandle, and nothing outside the
// accepted prefixes is opened or removed.
func TestReaderRefuses(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	secret := filepath.Join(outside, "passwd")
	os.WriteFile(secret, []byte("root:x:0:0"), 0o644)

	setup := func(t *testing.T) {
		os.WriteFile(filepath.Join(dir, "victim"), make([]byte, 64), 0o644)
		os.WriteFile(filepath.Join(dir, "mmgate-short"), make([]byte, 10), 0o600)
		os.WriteFile(filepath.Join(dir, "mmgate-ok"), make([]byte, 64), 0o600)
		os.Symlink(secret, filepath.Join(dir, "mmgate-link"))
		os.Mkdir(filepath.Join(dir, "mmgate-dir"), 0o700)
		unix.Mkfifo(filepath.Join(dir, "mmgate-fifo"), 0o600)
	}
	for _, tc := range []struct {
		name     string
		td       Wire
		want     string
		unlinked string // a file that must be gone afterwards ("" none)
	}{
		{"traversal", shmTensor("../"+filepath.Base(outside)+"/passwd", 0, 8, "int64", 1), "contains '/'", ""},
		{"etc passwd", shmTensor("../etc/passwd", 0, 8, "int64", 1), "contains '/'", ""},
		{"absolute", shmTensor("/etc/passwd", 0, 8, "int64", 1), "contains '/'", ""},
		{"empty", shmTensor("", 0, 8, "int64", 1), "empty name", ""},
		{"dot", shmTensor(".", 0, 8, "int64", 1), "name", ""},
		{"dotdot", shmTensor("..", 0, 8, "int64", 1), "name", ""},
		{"nul", shmTensor("mmgate-ok\x00", 0, 8, "int64", 1), "NUL", ""},
		{"foreign prefix", shmTensor("victim", 0, 8, "int64", 1), "no accepted producer prefix", ""},
		{"prefix only", shmTensor("mmgate-", 0, 8, "int64", 1), "no accepted producer prefix", ""},
		{"symlink", shmTensor("mmgate-link", 0, 8, "int64", 1), "symbolic link", "mmgate-link"},
		{"truncated", shmTensor("mmgate-short", 0, 16, "int64", 2), "file has 10 bytes", "mmgate-short"},
		{"offset past end", shmTensor("mmgate-ok", 60, 8, "int64", 1), "file has 64 bytes", "mmgate-ok"},
		{"nbytes vs shape", shmTensor("mmgate-ok", 0, 16, "float32", 2), "nbytes 16 but shape and dtype need 8", "mmgate-ok"},
		{"nbytes vs dtype", shmTensor("mmgate-ok", 0, 8, "bfloat16", 2), "need 4", "mmgate-ok"},
		{"bad dtype", shmTensor("mmgate-ok", 0, 8, "float64", 1), "unknown dtype", "mmgate-ok"},
		{"bad dtype foreign name", shmTensor("victim", 0, 8, "float64", 1), "unknown dtype", ""},
		{"directory", shmTensor("mmgate-dir", 0, 8, "int64", 1), "not a regular file", ""},
		{"fifo", shmTensor("mmgate-fifo", 0, 8, "int64", 1), "not a regular file", "mmgate-fifo"},
		{"no payload", Wire{Shape: []uint32{1}, DType: "int64"}, "no payload", ""},
		{"inline size", inlineWire(make([]byte, 16), "int64", 3), "inline payload has 16 bytes", ""},
		{"remote", Wire{Shape: []uint32{1}, DType: "int64", Kind: OtherPayload, Other: "remote"}, "payload remote not supported", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setup(t)
			r := newTestReader(t, dir, ReaderOptions{})
			_, err := r.Read(tc.td)
			if !errors.Is(err, ErrBadHandle) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadHandle containing %q", err, tc.want)
			}
			if tc.unlinked != "" && exists(filepath.Join(dir, tc.unlinked)) {
				t.Fatalf("%s not unlinked after refusal", tc.unlinked)
			}
			if !exists(filepath.Join(dir, "victim")) {
				t.Fatal("file without accepted prefix removed")
			}
			if b, err := os.ReadFile(secret); err != nil || string(b) != "root:x:0:0" {
				t.Fatal("file outside the directory touched")
			}
		})
	}
}

func TestReaderPrefixes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mine-1"), make([]byte, 8), 0o600)
	os.WriteFile(filepath.Join(dir, "mmgate-1"), make([]byte, 8), 0o600)
	r := newTestReader(t, dir, ReaderOptions{Prefixes: []string{"mine-"}})
	if _, err := r.Read(shmTensor("mine-1", 0, 8, "int64", 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(shmTensor("mmgate-1", 0, 8, "int64", 1)); !errors.Is(err, ErrBadHandle) {
		t.Fatalf("default prefix accepted when not configured: %v", err)
	}
	if !exists(filepath.Join(dir, "mmgate-1")) {
		t.Fatal("unaccepted name removed")
	}
	if _, err := NewReader(ReaderOptions{Prefixes: []string{"a/"}}); !errors.Is(err, ErrBadOptions) {
		t.Fatalf("bad prefix: %v", err)
	}
}
