package planar

import (
	"math"

	"github.com/mmgate/mmgate/tensor"
)

// NormParams are the rescale and normalize settings of an image processor.
type NormParams struct {
	Rescale     float64    // rescale_factor
	Mean, Std   [3]float64 // image_mean, image_std
	DoRescale   bool       // do_rescale
	DoNormalize bool       // do_normalize
}

// Value is the slow-path result for channel c of sample v, in NumPy's
// order: x = float32(float64(v)·Rescale) when DoRescale (else float32(v)),
// then (x − float32(Mean[c])) / float32(Std[c]) in float32 when DoNormalize.
func (p NormParams) Value(c int, v uint8) float32 {
	x := float32(v)
	if p.DoRescale {
		x = float32(float64(v) * p.Rescale)
	}
	if p.DoNormalize {
		d := x - float32(p.Mean[c])
		x = d / float32(p.Std[c])
	}
	return x
}

// Valid reports whether the parameters give finite arithmetic: a non-zero,
// finite rescale factor when rescaling and non-zero, non-NaN std and mean
// when normalizing.
func (p NormParams) Valid() bool {
	if p.DoRescale && (p.Rescale == 0 || math.IsNaN(p.Rescale) || math.IsInf(p.Rescale, 0)) {
		return false
	}
	if p.DoNormalize {
		for c := range 3 {
			if p.Std[c] == 0 || math.IsNaN(p.Std[c]) || math.IsNaN(p.Mean[c]) {
				return false
			}
		}
	}
	return true
}

// Norm is NormParams.Value tabulated for every (channel, sample) pair, as
// the encoded bits of each output dtype.
type Norm struct {
	f32  [3][256]float32
	bits [3][256]uint32 // float32 bits
	bf16 [3][256]uint16
	f16  [3][256]uint16
}

// NewNorm tabulates p.
func NewNorm(p NormParams) *Norm {
	n := new(Norm)
	for c := range 3 {
		for v := range 256 {
			x := p.Value(c, uint8(v))
			n.f32[c][v] = x
			n.bits[c][v] = math.Float32bits(x)
			n.bf16[c][v] = tensor.BFloat16FromFloat32(x)
			n.f16[c][v] = tensor.Float16FromFloat32(x)
		}
	}
	return n
}

// Float32 returns the tabulated value of channel c, sample v.
func (n *Norm) Float32(c int, v uint8) float32 { return n.f32[c][v] }
