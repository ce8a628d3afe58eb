package imageprep

import (
	"bytes"
	"errors"
	"testing"
)

// seqRows yields rows whose bytes are their row number, failing at a row.
type seqRows struct {
	width, next, failAt int
}

var errSeq = errors.New("row failed")

func (s *seqRows) Read(dst []uint8, n int) error {
	if s.failAt > 0 && s.next+n > s.failAt {
		return errSeq
	}
	for i := range n {
		for j := range s.width * 3 {
			dst[i*s.width*3+j] = uint8(s.next + i)
		}
	}
	s.next += n
	return nil
}

// Reading ahead hands out the source's rows in order, in reads of any
// size; a read past the end and a failing source end with an error; and
// Close returns however much was read.
func TestReadAhead(t *testing.T) {
	const w, h = 5, 100
	a := readAhead(&seqRows{width: w}, w, h)
	got := make([]uint8, h*w*3)
	for y, k := 0, 1; y < h; k = k%23 + 1 {
		n := min(k, h-y)
		if err := a.Read(got[y*w*3:], n); err != nil {
			t.Fatal(err)
		}
		y += n
	}
	want := make([]uint8, h*w*3)
	if err := (&seqRows{width: w}).Read(want, h); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("rows differ from the source's")
	}
	if err := a.Read(make([]uint8, w*3), 1); !errors.Is(err, errReadPastEnd) {
		t.Errorf("read past the end: %v", err)
	}
	a.Close()
	if a.busy <= 0 {
		t.Error("no reader time recorded")
	}

	a = readAhead(&seqRows{width: w, failAt: 40}, w, h)
	var err error
	for y := 0; y < h && err == nil; y += 10 {
		err = a.Read(make([]uint8, 10*w*3), 10)
	}
	if !errors.Is(err, errSeq) {
		t.Errorf("failing source: %v", err)
	}
	a.Close()

	a = readAhead(&seqRows{width: w}, w, h)
	if err := a.Read(make([]uint8, w*3), 1); err != nil {
		t.Fatal(err)
	}
	a.Close() // with batches still in flight
	readAhead(&seqRows{width: w}, w, h).Close()
}
