package internvl

import (
	"encoding/binary"
	"math"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
)

// norm is the rescale + normalize of one processor.
type norm struct {
	rescale           float64
	mean, std         [3]float64
	doRescale, doNorm bool
}

// value is the Pillow/NumPy arithmetic for channel c of a uint8 sample v:
// float64(v)·rescale cast to float32, then (x − f32(mean)) / f32(std) in
// float32. A step that is off is skipped; uint8 → float32 is exact.
func (n norm) value(c int, v uint8) float32 {
	x := float32(v)
	if n.doRescale {
		x = float32(float64(v) * n.rescale)
	}
	if n.doNorm {
		x = (x - float32(n.mean[c])) / float32(n.std[c])
	}
	return x
}

// table holds value for every (channel, sample) encoded as each output
// dtype: float32 bits, and bfloat16 / float16 bits (index 0 / 1).
type table struct {
	w32 [3][256]uint32
	w16 [2][3][256]uint16
}

func newTable(n norm) *table {
	t := new(table)
	for i := range 3 * 256 {
		c, v := i>>8, i&255
		x := n.value(c, uint8(v))
		t.w32[c][v] = math.Float32bits(x)
		t.w16[0][c][v] = tensor.BFloat16FromFloat32(x)
		t.w16[1][c][v] = tensor.Float16FromFloat32(x)
	}
	return t
}

// rect is a window of an image: the tile at (x0, y0), w×h pixels.
type rect struct{ x0, y0, w, h int }

// writeTile writes the window r of img as three channel planes (C, H, W),
// encoded as dt, into dst, which holds exactly 3·r.w·r.h elements.
func (t *table) writeTile(dst []byte, img *imaging.RGB, r rect, dt tensor.DType) {
	if dt == tensor.Float32 {
		fillPlanes(dst, img, r, &t.w32, put32)
		return
	}
	lut := &t.w16[0]
	if dt == tensor.Float16 {
		lut = &t.w16[1]
	}
	fillPlanes(dst, img, r, lut, put16)
}

// fillPlanes looks each channel of each row of the window up in lut and
// hands the row of encoded values to put, which stores it little-endian.
// dst is written front to back, one channel plane after another.
func fillPlanes[T uint16 | uint32](dst []byte, img *imaging.RGB, r rect, lut *[3][256]T, put func([]byte, []T)) {
	row := make([]T, r.w)
	size := len(dst) / (3 * r.w * r.h)
	rowBytes := r.w * size
	off := 0
	stride := img.Stride()
	for c := range 3 {
		l := &lut[c]
		for y := r.y0; y < r.y0+r.h; y++ {
			src := img.Pix[y*stride+r.x0*3+c : y*stride+(r.x0+r.w)*3]
			for x := range row {
				row[x] = l[src[3*x]]
			}
			put(dst[off:off+rowBytes], row)
			off += rowBytes
		}
	}
}

func put32(b []byte, v []uint32) {
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
}

func put16(b []byte, v []uint16) {
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
}
