package transportbench

import (
	"encoding/binary"
)

// Sum64 is the wrapping sum of b's little-endian uint64 words, the last
// partial word zero-padded. It reads every byte.
func Sum64(b []byte) uint64 {
	var s0, s1, s2, s3 uint64
	for len(b) >= 32 {
		s0 += binary.LittleEndian.Uint64(b)
		s1 += binary.LittleEndian.Uint64(b[8:])
		s2 += binary.LittleEndian.Uint64(b[16:])
		s3 += binary.LittleEndian.Uint64(b[24:])
		b = b[32:]
	}
	for len(b) >= 8 {
		s0 += binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	if len(b) > 0 {
		var t [8]byte
		copy(t[:], b)
		s0 += binary.LittleEndian.Uint64(t[:])
	}
	return s0 + s1 + s2 + s3
}

// blockSize is the length of the fill pattern.
const blockSize = 64 << 10

// Pattern is a 64 KiB block of pseudo-random bytes derived from seed. Fill
// writes it repeatedly, the way a producer writes a tensor in large
// sequential strides.
type Pattern struct {
	block []byte
	sum   uint64
}

// NewPattern derives the block from seed (splitmix64).
func NewPattern(seed uint64) *Pattern {
	p := &Pattern{block: make([]byte, blockSize)}
	x := seed
	for i := 0; i < blockSize; i += 8 {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		binary.LittleEndian.PutUint64(p.block[i:], z^(z>>31))
	}
	p.sum = Sum64(p.block)
	return p
}

// Fill writes the pattern over dst.
func (p *Pattern) Fill(dst []byte) {
	for len(dst) > 0 {
		n := copy(dst, p.block)
		dst = dst[n:]
	}
}

// Sum64 is Sum64 of a buffer of n bytes filled by Fill, computed without the
// buffer (n must be a multiple of 8).
func (p *Pattern) Sum64(n int) uint64 {
	full := uint64(n / blockSize)
	return full*p.sum + Sum64(p.block[:n%blockSize])
}
