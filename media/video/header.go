package video

import (
	"math"
	"math/bits"
	"strconv"
)

// This file answers: can the headers Header needs be read in Go instead of
// running ffprobe? parseHeader reads MP4/MOV (header_mp4.go) and
// Matroska/WebM (header_mkv.go) headers and returns what parseProbe would
// make of ffprobe's output for the same bytes, field for field, or ok false
// when the file is outside what the Go readers follow exactly; Header then
// runs ffprobe. The values go through the same arithmetic and the same
// decimal printing as FFmpeg 5.1's, so they are equal, not close (the tests
// compare them with Debian's ffprobe on every clip of the test data and on
// clips synthesized with FFmpeg).

// maxElements bounds the boxes or elements one level of a file may hold
// for the Go readers (a level with more is left to ffprobe), which bounds
// their memory on hostile input.
const maxElements = 1 << 16

// parseHeader returns the Info Header reports (Frames 0, Container unset)
// read from data in Go.
func parseHeader(data []byte, container string) (Info, bool) {
	var info Info
	var ok bool
	switch container {
	case ContainerMP4:
		info, ok = mp4Header(data)
	case ContainerMatroska:
		info, ok = mkvHeader(data)
	}
	if !ok || info.Width <= 0 || info.Height <= 0 || info.Width > maxSide || info.Height > maxSide || !codecs[info.Codec] {
		return Info{}, false
	}
	return info, true
}

// reduceRational is FFmpeg's av_reduce for positive num and den: the
// fraction in lowest terms when both terms fit in max, else the best
// approximation by continued fractions whose terms do; ok is false where
// the 64-bit arithmetic of that search would overflow.
func reduceRational(num, den, max int64) (n, d int64, ok bool) {
	if num < 0 || den <= 0 || max <= 0 {
		return 0, 0, false
	}
	if g := gcd(num, den); g != 0 {
		num, den = num/g, den/g
	}
	if num <= max && den <= max {
		return num, den, true
	}
	a0n, a0d, a1n, a1d := int64(0), int64(1), int64(1), int64(0)
	for den != 0 {
		x := num / den
		next := num - den*x
		a2n, ok1 := mulAdd(x, a1n, a0n)
		a2d, ok2 := mulAdd(x, a1d, a0d)
		if !ok1 || !ok2 {
			return 0, 0, false
		}
		if a2n > max || a2d > max {
			if a1n != 0 {
				x = (max - a0n) / a1n
			}
			if a1d != 0 {
				x = min(x, (max-a0d)/a1d)
			}
			if x > math.MaxInt64/2 {
				return 0, 0, false
			}
			t, ok1 := mulAdd(2*x, a1d, a0d)
			lhs, ok2 := mulAdd(den, t, 0)
			rhs, ok3 := mulAdd(num, a1d, 0)
			if !ok1 || !ok2 || !ok3 {
				return 0, 0, false
			}
			if lhs > rhs {
				a1n, a1d = x*a1n+a0n, x*a1d+a0d
			}
			break
		}
		a0n, a0d, a1n, a1d = a1n, a1d, a2n, a2d
		num, den = den, next
	}
	return a1n, a1d, true
}

// mulAdd returns a·b + c for non-negative operands, ok false on overflow.
func mulAdd(a, b, c int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	s, carry := bits.Add64(lo, uint64(c), 0)
	if hi != 0 || carry != 0 || s > math.MaxInt64 {
		return 0, false
	}
	return int64(s), true
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// rescaleRound is FFmpeg's av_rescale for non-negative a: a·b/c rounded to
// the nearest integer, halves away from zero.
func rescaleRound(a, b, c uint64) (int64, bool) {
	if c == 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(a, b)
	lo, carry := bits.Add64(lo, c/2, 0)
	hi += carry
	if hi >= c {
		return 0, false
	}
	q, _ := bits.Div64(hi, lo, c)
	if q > math.MaxInt64 {
		return 0, false
	}
	return int64(q), true
}

// microsecond is av_q2d(AV_TIME_BASE_Q).
const microsecond float64 = 1.0 / 1000000

// ffprobeSeconds is what parseSeconds makes of ffprobe's printing of a
// duration of us microseconds: us · 10⁻⁶ in double precision, printed with
// six decimals ("%f").
func ffprobeSeconds(us int64) float64 {
	return parseSeconds(strconv.FormatFloat(float64(us)*microsecond, 'f', 6, 64))
}

// mulDisplayMatrix is the display matrix FFmpeg's MOV demuxer attaches: a
// track's (tkhd) times the movie's (mvhd), each product shifted back by the
// fixed-point position of its row (16.16, 16.16, 2.30). ok is false when a
// sum leaves the 32-bit range FFmpeg keeps it in.
func mulDisplayMatrix(track, movie [9]int32) ([9]int32, bool) {
	var out [9]int32
	shift := [3]uint{16, 16, 30}
	for i := range 3 {
		for j := range 3 {
			var acc int64
			for e := range 3 {
				acc += (int64(track[i*3+e]) * int64(movie[e*3+j])) >> shift[e]
				if acc < math.MinInt32 || acc > math.MaxInt32 {
					return out, false
				}
			}
			out[i*3+j] = int32(acc)
		}
	}
	return out, true
}

// matrixRotation returns the clockwise rotation ffprobe reports (as
// parseProbe reads it) for a display matrix that is the identity or a pure
// rotation by a multiple of 90° (any translation); ok is false for any
// other matrix (flips, scaling, shear), which ffprobe is left to describe.
func matrixRotation(m [9]int32) (int, bool) {
	const one = 1 << 16
	if m[2] != 0 || m[5] != 0 || m[8] != 1<<30 {
		return 0, false
	}
	switch [4]int32{m[0], m[1], m[3], m[4]} {
	case [4]int32{one, 0, 0, one}:
		return 0, true
	case [4]int32{0, one, -one, 0}:
		return 90, true
	case [4]int32{-one, 0, 0, -one}:
		return 180, true
	case [4]int32{0, -one, one, 0}:
		return 270, true
	}
	return 0, false
}
