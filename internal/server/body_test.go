package server

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadAllSized(t *testing.T) {
	body := strings.Repeat("0123456789", 1000)
	for _, declared := range []int64{-1, 0, 10, 10000, 10001, 1 << 40} {
		got, err := readAllSized(iotest.HalfReader(strings.NewReader(body)), declared, 1<<20)
		if err != nil || string(got) != body {
			t.Errorf("declared %d: %d bytes, err %v; want the whole body", declared, len(got), err)
		}
	}
	// A body cut short reports the reader's error, as io.ReadAll does.
	cut := io.MultiReader(strings.NewReader(body[:500]), iotest.ErrReader(io.ErrUnexpectedEOF))
	if _, err := readAllSized(cut, int64(len(body)), 1<<20); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated body: err = %v, want io.ErrUnexpectedEOF", err)
	}
	// The declared length sizes the buffer once (io.ReadAll would end with
	// a capacity of up to twice the body).
	got, _ := readAllSized(bytes.NewReader([]byte(body)), int64(len(body)), 1<<20)
	if cap(got) > len(body)+len(body)/8 {
		t.Errorf("buffer grew to %d for a %d-byte body", cap(got), len(body))
	}
}
