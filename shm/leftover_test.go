package shm

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// RemoveOwn removes this pool's segments left in the directory, after
// Close too, and nothing else: not another owner's segments, not files
// without the prefix, not a directory with the pool's name.
func TestRemoveOwn(t *testing.T) {
	p, dir := newTestPool(t, Options{})
	write := func(name string) string {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return name
	}
	deadline := time.Now().Add(time.Hour)
	mine1, _ := segmentName(p.Prefix(), p.Owner(), deadline)
	mine2, _ := segmentName(p.Prefix(), p.Owner(), deadline)
	theirs, _ := segmentName(p.Prefix(), "0123456789abcdef", deadline)
	write(mine1)
	write(mine2)
	write(theirs)
	write("unrelated")
	sub, _ := segmentName(p.Prefix(), p.Owner(), deadline)
	if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
		t.Fatal(err)
	}
	p.Close()
	if n := p.RemoveOwn(); n != 2 {
		t.Errorf("removed %d, want 2", n)
	}
	want := []string{theirs, "unrelated", sub}
	slices.Sort(want)
	if got := dirNames(t, dir); !slices.Equal(got, want) {
		t.Errorf("left %v, want %v", got, want)
	}
}
