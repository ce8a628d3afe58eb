package tokenizer

import "unicode/utf8"

// This file answers: how do bytes that are not UTF-8 become text? Exactly as
// Rust's String::from_utf8_lossy: each maximal subpart of an ill-formed
// sequence (Unicode §3.9, "U+FFFD substitution of maximal subparts") becomes
// one U+FFFD.

const replacement = "\uFFFD"

// seqLen reports how many bytes at the start of b form one well-formed
// character (n > 0, complete true), or the length of the maximal subpart of
// an ill-formed sequence (complete false; n ≥ 1), or, when b ends inside a
// sequence that could still become well formed, that prefix's length with
// truncated true.
func seqLen(b []byte) (n int, complete, truncated bool) {
	c := b[0]
	if c < 0x80 {
		return 1, true, false
	}
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1, false, false
	}
	i := 1
	for ; i <= need; i++ {
		if i >= len(b) {
			return i, false, true
		}
		if b[i] < lo || b[i] > hi {
			return i, false, false
		}
		lo, hi = 0x80, 0xBF
	}
	return i, true, false
}

// appendLossy appends b to dst as UTF-8, replacing each maximal invalid
// subpart with U+FFFD. When final is false, a truncated sequence at the end
// of b is left out and its length returned as pending.
func appendLossy(dst []byte, b []byte, final bool) (out []byte, pending int) {
	for len(b) > 0 {
		// Fast path for ASCII.
		i := 0
		for i < len(b) && b[i] < 0x80 {
			i++
		}
		dst = append(dst, b[:i]...)
		b = b[i:]
		if len(b) == 0 {
			break
		}
		n, ok, trunc := seqLen(b)
		switch {
		case ok:
			dst = append(dst, b[:n]...)
		case trunc && !final:
			return dst, len(b)
		default:
			dst = append(dst, replacement...)
		}
		b = b[n:]
	}
	return dst, 0
}

// lossyString returns s unchanged when it is valid UTF-8 and otherwise its
// lossy conversion.
func lossyString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	out, _ := appendLossy(make([]byte, 0, len(s)+8), []byte(s), true)
	return string(out)
}
