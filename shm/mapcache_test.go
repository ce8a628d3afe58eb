package shm

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A reader that keeps files maps a refilled file once: later names of the
// same file see the new bytes through the cached mapping.
func TestKeepReaderMapsRefilledFileOnce(t *testing.T) {
	dir := t.TempDir()
	r, err := NewReader(ReaderOptions{Dir: dir, KeepFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const n = 1 << 16
	name := DefaultPrefix + "0123456789abcdef0123456789abcdef"
	path := filepath.Join(dir, name)
	td := func(name string) Wire {
		return Wire{Shape: []uint32{n}, DType: "uint32", Kind: ShmPayload, Shm: Handle{Name: name, NBytes: 4 * n}}
	}
	for round := 0; round < 4; round++ {
		want := bytes.Repeat([]byte{byte(round + 1)}, 4*n)
		if round == 0 {
			if err := os.WriteFile(path, want, 0o600); err != nil {
				t.Fatal(err)
			}
		} else {
			next := filepath.Join(dir, name[:len(name)-1]+string(rune('a'+round)))
			if err := os.Rename(path, next); err != nil {
				t.Fatal(err)
			}
			path = next
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt(want, 0)
			f.Close()
		}
		v, err := r.Read(td(filepath.Base(path)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(v.Data, want) {
			t.Fatalf("round %d: stale bytes", round)
		}
		v.Close()
		r.maps.mu.Lock()
		cached := len(r.maps.maps)
		r.maps.mu.Unlock()
		if cached != 1 {
			t.Fatalf("round %d: %d cached mappings, want 1", round, cached)
		}
	}
	// Many distinct files: the cache stays bounded.
	for i := 0; i < 2*mapCacheEntries; i++ {
		nm := DefaultPrefix + "feedfeedfeedfeedfeedfeedfeed" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "00"
		if err := os.WriteFile(filepath.Join(dir, nm), make([]byte, 4*n), 0o600); err != nil {
			t.Fatal(err)
		}
		v, err := r.Read(td(nm))
		if err != nil {
			t.Fatal(err)
		}
		v.Close()
	}
	r.maps.mu.Lock()
	defer r.maps.mu.Unlock()
	if len(r.maps.maps) > mapCacheEntries {
		t.Errorf("%d cached mappings, bound %d", len(r.maps.maps), mapCacheEntries)
	}
}

// A kept mapping of a file its producer removed is dropped once it is not
// in use: at once when given back, or by Prune when it was idle already.
func TestKeepReaderDropsRemovedFiles(t *testing.T) {
	dir := t.TempDir()
	r, err := NewReader(ReaderOptions{Dir: dir, KeepFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const n = 1 << 12
	read := func(name string) *View {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, n), 0o600); err != nil {
			t.Fatal(err)
		}
		v, err := r.Read(Wire{Shape: []uint32{n / 4}, DType: "uint32", Kind: ShmPayload, Shm: Handle{Name: name, NBytes: n}})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a, b := DefaultPrefix+"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", DefaultPrefix+"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	va := read(a)
	read(b).Close()
	if got := cachedMaps(r); got != 2 {
		t.Fatalf("%d mappings cached, want 2", got)
	}
	// Removed while in use: dropped when given back.
	os.Remove(filepath.Join(dir, a))
	va.Close()
	if got := cachedMaps(r); got != 1 {
		t.Fatalf("%d mappings cached after giving back a removed file's, want 1", got)
	}
	// Removed while idle: kept until Prune.
	os.Remove(filepath.Join(dir, b))
	if got := cachedMaps(r); got != 1 {
		t.Fatalf("%d mappings cached, want 1 before Prune", got)
	}
	r.Prune()
	if got := cachedMaps(r); got != 0 {
		t.Fatalf("%d mappings cached after Prune, want 0", got)
	}
}
