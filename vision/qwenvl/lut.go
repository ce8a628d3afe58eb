package qwenvl

import (
	"math"

	"github.com/mmgate/mmgate/tensor"
)

// normTable is the rescale + normalize of every (channel, uint8 value) pair,
// as float32 values and as the encoded bits of each output dtype.
type normTable struct {
	f32  [3][256]float32
	bits [3][256]uint32 // float32 bits
	bf16 [3][256]uint16
	f16  [3][256]uint16
}

// normalizeValue is the HF slow path for one sample, in NumPy's order:
// rescale in float64 then cast to float32, then (x − f32(mean)) / f32(std)
// in float32. Disabled steps are skipped; the uint8 → float32 cast is exact.
func normalizeValue(v uint8, rescale, mean, std float64, doRescale, doNormalize bool) float32 {
	x := float32(v)
	if doRescale {
		x = float32(float64(v) * rescale)
	}
	if doNormalize {
		d := x - float32(mean)
		x = d / float32(std)
	}
	return x
}

func newNormTable(rescale float64, mean, std [3]float64, doRescale, doNormalize bool) *normTable {
	t := new(normTable)
	for c := range 3 {
		for v := range 256 {
			x := normalizeValue(uint8(v), rescale, mean[c], std[c], doRescale, doNormalize)
			t.f32[c][v] = x
			t.bits[c][v] = math.Float32bits(x)
			t.bf16[c][v] = tensor.BFloat16FromFloat32(x)
			t.f16[c][v] = tensor.Float16FromFloat32(x)
		}
	}
	return t
}

// table16 returns the 16-bit table of dt (bfloat16 or float16).
func (t *normTable) table16(dt tensor.DType) *[3][256]uint16 {
	if dt == tensor.BFloat16 {
		return &t.bf16
	}
	return &t.f16
}
