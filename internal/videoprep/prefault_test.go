package videoprep

import (
	"bytes"
	"testing"
)

// TestPrefaultKeepsContents: backing memory ahead never changes what is
// already written, for any alignment and length, and stops when asked.
func TestPrefaultKeepsContents(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 4096, 3*prefaultStep + 12345} {
		for _, off := range []int{0, 1, 4093} {
			buf := make([]byte, n+off)[off:]
			for i := range buf {
				buf[i] = byte(i*7 + 3)
			}
			want := bytes.Clone(buf)
			prefault(buf, make(chan struct{}))
			if !bytes.Equal(buf, want) {
				t.Fatalf("n=%d off=%d: contents changed", n, off)
			}
		}
	}
	stop := make(chan struct{})
	close(stop)
	prefault(make([]byte, 2*prefaultStep), stop) // returns at once
}
