package procs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestMemory counts a segment file by its blocks, and its pages again
// once removed while this process still maps them.
func TestMemory(t *testing.T) {
	dir := ShmDir(t, "mmgate-procs-mem-")
	pid := os.Getpid()
	base, err := Memory(dir, pid)
	if err != nil {
		t.Fatal(err)
	}
	if base.Anon <= 0 || base.Shm != 0 {
		t.Fatalf("empty directory: %+v", base)
	}
	const n = 8 << 20
	path := filepath.Join(dir, "seg")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(n); err != nil {
		t.Fatal(err)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	for i := 0; i < n; i += 4096 {
		m[i] = 1
	}
	if fp, err := Memory(dir, pid); err != nil || fp.Shm < n {
		t.Fatalf("file of %d bytes: %+v %v", n, fp, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	fp, err := Memory(dir, pid)
	if err != nil || fp.Shm < n || fp.Total() != fp.Anon+fp.Shm {
		t.Fatalf("removed but mapped: %+v %v", fp, err)
	}
}
