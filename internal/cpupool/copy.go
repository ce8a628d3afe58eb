package cpupool

import "io"

// Piece bounds the bytes that one call of an assembly kernel (memmove, a
// hash) should cover in pool work. The Go runtime cannot preempt assembly:
// a 15 MB copy in one call holds up every stop-the-world of the process —
// and with it every other request — until it returns, the more so on a
// low-priority thread. Work split into pieces reaches a preemption point
// every few tens of microseconds.
const Piece = 256 << 10

// Copy is copy(dst, src) done in pieces of Piece bytes.
func Copy(dst, src []byte) int {
	n := min(len(dst), len(src))
	for off := 0; off < n; off += Piece {
		copy(dst[off:n], src[off:min(off+Piece, n)])
	}
	return n
}

// Clone returns a copy of b made with Copy.
func Clone(b []byte) []byte {
	out := make([]byte, len(b))
	Copy(out, b)
	return out
}

// Write feeds b to w (a hash) in pieces of Piece bytes.
func Write(w io.Writer, b []byte) {
	for len(b) > 0 {
		n := min(len(b), Piece)
		w.Write(b[:n])
		b = b[n:]
	}
}
