package norm

import (
	"math"

	"github.com/mmgate/mmgate/tensor"
)

// DefaultRescale is transformers' rescale_factor default, 1/255.
const DefaultRescale = 1.0 / 255.0

// Params are an image processor's rescale and normalize settings.
type Params struct {
	Rescale     float64    // rescale_factor
	Mean, Std   [3]float64 // image_mean, image_std
	DoRescale   bool       // do_rescale
	DoNormalize bool       // do_normalize
}

// Value is the slow-path result for channel c of sample v, in NumPy's
// order: x = float32(float64(v)·Rescale) when DoRescale (else float32(v)),
// then (x − float32(Mean[c])) / float32(Std[c]) in float32 when
// DoNormalize.
func (p Params) Value(c int, v uint8) float32 {
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
func (p Params) Valid() bool {
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

// Table is Params.Value for every (channel, sample) pair, as float32 and
// as the encoded bits of each output dtype.
type Table struct {
	p    Params
	f32  [3][256]float32
	bits [3][256]uint32 // float32 bits
	bf16 [3][256]uint16
	f16  [3][256]uint16
}

// New tabulates p.
func New(p Params) *Table {
	t := &Table{p: p}
	for c := range 3 {
		for v := range 256 {
			x := p.Value(c, uint8(v))
			t.f32[c][v] = x
			t.bits[c][v] = math.Float32bits(x)
			t.bf16[c][v] = tensor.BFloat16FromFloat32(x)
			t.f16[c][v] = tensor.Float16FromFloat32(x)
		}
	}
	return t
}

// Float32 returns the value of channel c, sample v.
func (t *Table) Float32(c int, v uint8) float32 { return t.f32[c][v] }

// Bits32 is the table as float32 bits, indexed [channel][sample].
func (t *Table) Bits32() *[3][256]uint32 { return &t.bits }

// Affine returns the constants of Params.Value when both steps are on, so
// that a vector kernel may compute the float32 values with the same
// operations in the same order instead of looking them up: rescale, and
// float32(mean[c]) and float32(std[c]). ok is false when a step is off.
func (t *Table) Affine() (rescale float64, mean, std [3]float32, ok bool) {
	if !t.p.DoRescale || !t.p.DoNormalize {
		return 0, mean, std, false
	}
	for c := range 3 {
		mean[c], std[c] = float32(t.p.Mean[c]), float32(t.p.Std[c])
	}
	return t.p.Rescale, mean, std, true
}

// Bits16 is the table encoded as dt: bfloat16 for tensor.BFloat16, float16
// for any other dtype.
func (t *Table) Bits16(dt tensor.DType) *[3][256]uint16 {
	if dt == tensor.BFloat16 {
		return &t.bf16
	}
	return &t.f16
}

// OpenAICLIP returns transformers' OPENAI_CLIP_MEAN and OPENAI_CLIP_STD, the
// class defaults of the CLIP, Qwen2-VL and GLM-4V image processors.
func OpenAICLIP() (mean, std [3]float64) {
	return [3]float64{0.48145466, 0.4578275, 0.40821073}, [3]float64{0.26862954, 0.26130258, 0.27577711}
}
