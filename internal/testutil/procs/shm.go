package procs

import (
	"os"
	"slices"
)

// NewShmDir makes a private directory on the shared-memory tmpfs (in the
// temporary directory where there is none), so that its user sees exactly
// the segments of its own processes. The caller removes it.
func NewShmDir(prefix string) (string, error) {
	base := "/dev/shm"
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		base = os.TempDir()
	}
	return os.MkdirTemp(base, prefix)
}

// ShmDir is NewShmDir for tests, removed at the end of the test.
func ShmDir(t T, prefix string) string {
	t.Helper()
	d, err := NewShmDir(prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// Segments lists the names in a shared-memory directory, except those in
// ignore: what processes left there. It is never nil.
func Segments(dir string, ignore ...string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	out := []string{}
	for _, e := range ents {
		if !slices.Contains(ignore, e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out, err
}
