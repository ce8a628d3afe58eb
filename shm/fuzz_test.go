package shm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseName: parseName never panics, and accepts only names that
// segmentName could have produced (valid file names with the prefix).
func FuzzParseName(f *testing.F) {
	f.Add("mmgate-0123456789abcdef-0000018f00000000-0123456789abcdef0123456789abcdef")
	f.Add("mmgate-")
	f.Add("mmgate-x-y-z")
	f.Fuzz(func(t *testing.T, name string) {
		pn, ok := parseName(DefaultPrefix, name)
		if !ok {
			return
		}
		if validName(name) != nil || !strings.HasPrefix(name, DefaultPrefix) || len(pn.owner) != ownerHexLen {
			t.Fatalf("accepted %q", name)
		}
	})
}

// FuzzReadHandle: a reader given arbitrary handles never panics, never
// touches a file without an accepted prefix, and refuses with ErrBadHandle
// unless the handle is valid.
func FuzzReadHandle(f *testing.F) {
	f.Add("mmgate-a", uint64(0), uint64(8), "int64", uint32(1))
	f.Add("../victim", uint64(0), uint64(8), "int64", uint32(1))
	f.Add("victim", uint64(0), uint64(8), "int64", uint32(1))
	f.Add("mmgate-a", uint64(1<<63), uint64(8), "int64", uint32(1))
	f.Add("mmgate-a", uint64(4), uint64(4), "float32", uint32(1))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, name string, off, n uint64, dtype string, dim uint32) {
		os.WriteFile(filepath.Join(dir, "victim"), make([]byte, 16), 0o600)
		os.WriteFile(filepath.Join(dir, "mmgate-a"), make([]byte, 16), 0o600)
		r, err := NewReader(ReaderOptions{Dir: dir, Copy: off%2 == 1})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		v, err := r.Read(Wire{Shape: []uint32{dim}, DType: dtype,
			Kind: ShmPayload, Shm: Handle{Name: name, Offset: off, NBytes: n}})
		if err == nil {
			if name != "mmgate-a" || uint64(len(v.Data)) != n || off+n > 16 {
				t.Fatalf("accepted %q off %d n %d", name, off, n)
			}
			v.Close()
		} else if !errors.Is(err, ErrBadHandle) {
			t.Fatalf("error not ErrBadHandle: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "victim")); err != nil {
			t.Fatalf("victim touched by %q", name)
		}
	})
}
