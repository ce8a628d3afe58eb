package resample

import (
	"math"

	"github.com/mmgate/mmgate/imaging"
)

// A slow, direct transcription of the resize steps of docs/preprocessing.md
// ("Resize: Pillow's resampler": Pillow's Image.resize for RGB), written
// independently of the fast path: weights in float64 recomputed per output
// sample, a full uint8 intermediate image, one sample at a time.

func refWeight(f Filter, x float64) float64 {
	u := math.Abs(x)
	switch f {
	case Box:
		if -0.5 < x && x <= 0.5 {
			return 1
		}
		return 0
	case Bilinear:
		return math.Max(0, 1-u)
	case Hamming:
		if u == 0 {
			return 1
		}
		if u >= 1 {
			return 0
		}
		s := float64(math.Pi * u)
		c := float64(float64(float32(0.46)) * math.Cos(s))
		return float64(float64(math.Sin(s)/s) * (float64(float32(0.54)) + c))
	case Bicubic:
		const a = -0.5
		if u < 1 {
			t := float64(1.5*u) - 2.5
			t = float64(t * u)
			return float64(t*u) + 1
		}
		if u < 2 {
			t := float64((u-5)*u) + 8
			t = float64(t*u) - 4
			return float64(t * a)
		}
		return 0
	case Lanczos:
		if x < -3 || x >= 3 {
			return 0
		}
		sinc := func(v float64) float64 {
			if v == 0 {
				return 1
			}
			return math.Sin(float64(math.Pi*v)) / float64(math.Pi*v)
		}
		return float64(sinc(x) * sinc(x/3))
	}
	panic("no kernel")
}

func refSupport(f Filter) float64 {
	return map[Filter]float64{Box: 0.5, Bilinear: 1, Hamming: 1, Bicubic: 2, Lanczos: 3}[f]
}

// refTaps returns output i's first source index and fixed-point weights.
func refTaps(nIn, nOut, i int, f Filter) (int, []int32) {
	scale := float64(nIn) / float64(nOut)
	fscale := math.Max(scale, 1)
	sup := float64(refSupport(f) * fscale)
	center := float64((float64(i) + 0.5) * scale)
	lo := max(int(center-sup+0.5), 0)
	hi := min(int(center+sup+0.5), nIn)
	ws := make([]float64, hi-lo)
	total := 0.0
	for j := range ws {
		ws[j] = refWeight(f, float64((float64(lo+j)-center+0.5)*(1.0/fscale)))
		total += ws[j]
	}
	q := make([]int32, len(ws))
	for j, w := range ws {
		if total != 0 {
			w = w / total
		}
		if w < 0 {
			q[j] = int32(math.Trunc(-0.5 + float64(w*4194304)))
		} else {
			q[j] = int32(math.Trunc(0.5 + float64(w*4194304)))
		}
	}
	return lo, q
}

func refClip(acc int32) uint8 {
	v := acc >> 22
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}

// refHorizontal resizes rows [y0, y1) of src to width w.
func refHorizontal(src *imaging.RGB, w, y0, y1 int, f Filter) *imaging.RGB {
	out := imaging.NewRGB(w, y1-y0)
	for x := range w {
		lo, q := refTaps(src.Width, w, x, f)
		for y := y0; y < y1; y++ {
			for c := range 3 {
				acc := int32(1 << 21)
				for j, wq := range q {
					acc += int32(src.Pix[(y*src.Width+lo+j)*3+c]) * wq
				}
				out.Pix[((y-y0)*w+x)*3+c] = refClip(acc)
			}
		}
	}
	return out
}

// refVertical resizes src (whose row 0 is source row shift) to height h,
// the table being that of nIn source rows.
func refVertical(src *imaging.RGB, nIn, h, shift int, f Filter) *imaging.RGB {
	out := imaging.NewRGB(src.Width, h)
	for y := range h {
		lo, q := refTaps(nIn, h, y, f)
		for x := range src.Width {
			for c := range 3 {
				acc := int32(1 << 21)
				for j, wq := range q {
					acc += int32(src.Pix[((lo+j-shift)*src.Width+x)*3+c]) * wq
				}
				out.Pix[(y*src.Width+x)*3+c] = refClip(acc)
			}
		}
	}
	return out
}

// refPillowCall is one call of Pillow's Image.resize ("When a resize
// happens", "Passes and fixed-point sums").
func refPillowCall(src *imaging.RGB, w, h int, f Filter) *imaging.RGB {
	if w == src.Width && h == src.Height {
		return &imaging.RGB{Pix: append([]uint8(nil), src.Pix...), Width: w, Height: h}
	}
	if f == Nearest {
		return refNearest(src, w, h)
	}
	first, _ := refTaps(src.Height, h, 0, f)
	lastLo, lastQ := refTaps(src.Height, h, h-1, f)
	last := lastLo + len(lastQ)
	img, shift := src, 0
	if w != src.Width {
		img, shift = refHorizontal(src, w, first, last, f), first
	}
	if h != src.Height {
		img = refVertical(img, src.Height, h, shift, f)
	}
	return img
}

func refNearest(src *imaging.RGB, w, h int) *imaging.RGB {
	out := imaging.NewRGB(w, h)
	pos := func(nIn, nOut int) []int {
		step := float64(nIn) / float64(nOut)
		p := float64(step * 0.5)
		r := make([]int, nOut)
		for i := range r {
			r[i] = -1
			if p >= 0 && int(p) < nIn {
				r[i] = int(p)
			}
			p += step
		}
		return r
	}
	xs, ys := pos(src.Width, w), pos(src.Height, h)
	for y, sy := range ys {
		for x, sx := range xs {
			if sx >= 0 && sy >= 0 {
				copy(out.Pix[(y*w+x)*3:][:3], src.Pix[(sy*src.Width+sx)*3:])
			}
		}
	}
	return out
}

// refResize is Image.resize of Pillow ≥ 12.2 (tall = true) or before.
func refResize(src *imaging.RGB, w, h int, f Filter, tall bool) *imaging.RGB {
	if tall && src.Height > 100*src.Width && h < src.Height {
		return refPillowCall(refPillowCall(src, src.Width, h, f), w, h, f)
	}
	return refPillowCall(src, w, h, f)
}
