package fetch

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

func TestReadCapped(t *testing.T) {
	const limit = 100 << 10
	for _, n := range []int{0, 1, 1000, limit - 1, limit, limit + 1, 3 * limit} {
		data := bytes.Repeat([]byte{1, 2, 3}, n/3+1)[:n]
		for _, hint := range []int64{-1, 0, 10, int64(n), 5 * limit} {
			for name, r := range map[string]io.Reader{
				"plain":    bytes.NewReader(data),
				"one-byte": iotest.OneByteReader(bytes.NewReader(data)),
				"half":     iotest.HalfReader(bytes.NewReader(data)),
				"data-err": iotest.DataErrReader(bytes.NewReader(data)),
			} {
				got, err := readCapped(r, limit, hint)
				if n > limit {
					if err != errOverCap {
						t.Fatalf("n=%d hint=%d %s: err %v, want over cap", n, hint, name, err)
					}
					continue
				}
				if err != nil || !bytes.Equal(got, data) || cap(got) > limit+1 {
					t.Fatalf("n=%d hint=%d %s: len %d cap %d err %v", n, hint, name, len(got), cap(got), err)
				}
			}
		}
	}
	boom := errors.New("boom")
	if _, err := readCapped(iotest.ErrReader(boom), limit, 0); err != boom {
		t.Fatalf("err %v", err)
	}
}
