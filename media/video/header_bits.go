package video

// bitReader reads a bit string most significant bit first, as H.264, HEVC
// and VP9 headers are written. Reading past the end sets err and yields
// zeros, so a parser checks err once at the end.
type bitReader struct {
	b   []byte
	pos int // in bits
	err bool
}

// u reads n ≤ 32 bits.
func (r *bitReader) u(n int) uint32 {
	var v uint32
	for range n {
		i := r.pos >> 3
		if i >= len(r.b) {
			r.err = true
			return 0
		}
		v = v<<1 | uint32(r.b[i]>>(7-uint(r.pos&7))&1)
		r.pos++
	}
	return v
}

func (r *bitReader) flag() bool { return r.u(1) == 1 }

func (r *bitReader) skip(n int) {
	r.pos += n
	if r.pos > 8*len(r.b) {
		r.err = true
	}
}

// ue reads an unsigned Exp-Golomb code; codes of more than 31 leading zeros
// (values over 2³²−2) are refused.
func (r *bitReader) ue() uint32 {
	zeros := 0
	for !r.flag() {
		if r.err || zeros == 31 {
			r.err = true
			return 0
		}
		zeros++
	}
	return (1<<zeros - 1) + r.u(zeros)
}

// se reads a signed Exp-Golomb code.
func (r *bitReader) se() int64 {
	k := int64(r.ue())
	if k&1 == 1 {
		return (k + 1) / 2
	}
	return -k / 2
}

// unescapeRBSP removes the emulation prevention bytes (the 0x03 of each
// 0x00 0x00 0x03) of a NAL unit's payload.
func unescapeRBSP(nal []byte) []byte {
	out := make([]byte, 0, len(nal))
	zeros := 0
	for _, c := range nal {
		if zeros >= 2 && c == 3 {
			zeros = 0
			continue
		}
		out = append(out, c)
		if c == 0 {
			zeros++
		} else {
			zeros = 0
		}
	}
	return out
}
