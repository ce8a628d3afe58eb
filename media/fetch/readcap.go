package fetch

import (
	"errors"
	"io"
)

// errOverCap is readCapped's signal that the input had more than limit bytes.
var errOverCap = errors.New("over the byte cap")

// maxHint bounds the buffer allocated up front from a declared size, so a
// lying Content-Length or file size costs at most this much before bytes
// actually arrive.
const maxHint = 8 << 20

// readCapped reads r to EOF and returns its bytes, or errOverCap as soon as
// more than limit bytes were read. The buffer never grows beyond limit+1 bytes;
// hint (a declared size, <= 0 if unknown) only sizes the first allocation.
func readCapped(r io.Reader, limit, hint int64) ([]byte, error) {
	size := int64(64 << 10)
	if hint > 0 {
		size = min(hint, maxHint) + 1 // +1: room to see EOF without growing
	}
	size = min(size, limit+1)
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, errOverCap
			}
			next := min(2*int64(cap(buf)), limit+1)
			nb := make([]byte, len(buf), next)
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, errOverCap
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
