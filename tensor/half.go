package tensor

import "math"

// BFloat16FromFloat32 rounds f to bfloat16 bits, to nearest with ties to
// even. Every NaN becomes the canonical 0x7FC0, as PyTorch does.
func BFloat16FromFloat32(f float32) uint16 {
	u := math.Float32bits(f)
	if u&0x7FFFFFFF > 0x7F800000 {
		return 0x7FC0
	}
	return uint16((u + 0x7FFF + (u>>16)&1) >> 16)
}

// Float32FromBFloat16 widens bfloat16 bits exactly.
func Float32FromBFloat16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// Float16FromFloat32 rounds f to IEEE half bits, to nearest with ties to even,
// producing subnormals and ±Inf on overflow. A NaN stays a quiet NaN with its
// sign.
func Float16FromFloat32(f float32) uint16 {
	u := math.Float32bits(f)
	sign := uint16(u>>16) & 0x8000
	a := u & 0x7FFFFFFF
	switch {
	case a > 0x7F800000: // NaN
		return sign | 0x7E00
	case a >= 0x477FF000: // ≥ 65520 rounds past the largest half (65504)
		return sign | 0x7C00
	case a >= 0x38800000: // normal half: rebias the exponent, drop 13 bits
		r := a - 0x38000000
		r += 0xFFF + (r>>13)&1
		return sign | uint16(r>>13)
	case a <= 0x33000000: // ≤ 2^-25: rounds to (signed) zero
		return sign
	}
	// Subnormal half: value = m·2^(e-150); in units of 2^-24 that is m >> (126-e).
	e := a >> 23
	m := a&0x7FFFFF | 0x800000
	shift := 126 - e
	q := m >> shift
	rem := m & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rem > half || (rem == half && q&1 == 1) {
		q++
	}
	return sign | uint16(q)
}

// Float32FromFloat16 widens IEEE half bits exactly.
func Float32FromFloat16(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	e := uint32(h>>10) & 0x1F
	m := uint32(h & 0x3FF)
	switch {
	case e == 0x1F:
		return math.Float32frombits(sign | 0x7F800000 | m<<13)
	case e != 0:
		return math.Float32frombits(sign | (e+112)<<23 | m<<13)
	case m == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal: normalize.
	e = 113
	for m&0x400 == 0 {
		m <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (m&0x3FF)<<13)
}
