package resample

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Filter selects a resampling filter. The numeric values are Pillow's
// Image.Resampling codes, so Filter(code) converts a Pillow integer directly.
type Filter int

// The filters, with Pillow's integer codes.
const (
	Nearest  Filter = 0
	Lanczos  Filter = 1
	Bilinear Filter = 2
	Bicubic  Filter = 3
	Box      Filter = 4
	Hamming  Filter = 5
)

var filterNames = [...]string{
	Nearest:  "nearest",
	Lanczos:  "lanczos",
	Bilinear: "bilinear",
	Bicubic:  "bicubic",
	Box:      "box",
	Hamming:  "hamming",
}

// String returns the lower-case filter name ("bicubic"), or "filter(N)" for
// an unknown value.
func (f Filter) String() string {
	if f.valid() {
		return filterNames[f]
	}
	return "filter(" + strconv.Itoa(int(f)) + ")"
}

func (f Filter) valid() bool { return f >= Nearest && f <= Hamming }

// ParseFilter accepts a filter name in any case ("bicubic", "BICUBIC";
// "antialias" is Pillow's old name for LANCZOS) or a Pillow integer code
// ("3"). Unknown names return an error wrapping ErrUnsupported.
func ParseFilter(s string) (Filter, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for i, n := range filterNames {
		if t == n {
			return Filter(i), nil
		}
	}
	if t == "antialias" {
		return Lanczos, nil
	}
	if n, err := strconv.Atoi(t); err == nil && Filter(n).valid() {
		return Filter(n), nil
	}
	return 0, fmt.Errorf("resample: parse filter %q: %w", s, ErrUnsupported)
}

// kernel is a separable convolution filter: a support radius (in source
// samples at scale 1) and a weight function. Kernels are data; the
// coefficient tables are derived from them (coeffs.go).
type kernel struct {
	support float64
	weight  func(x float64) float64
}

// kernelOf returns the kernel of a convolution filter (every filter except
// Nearest). The weight functions follow Pillow's Resample.c in float64, with
// every product that feeds an addition or subtraction rounded explicitly so
// that the compiler cannot fuse it into an FMA.
func kernelOf(f Filter) (kernel, bool) {
	switch f {
	case Box:
		return kernel{0.5, boxWeight}, true
	case Bilinear:
		return kernel{1, bilinearWeight}, true
	case Hamming:
		return kernel{1, hammingWeight}, true
	case Bicubic:
		return kernel{2, bicubicWeight}, true
	case Lanczos:
		return kernel{3, lanczosWeight}, true
	}
	return kernel{}, false
}

func boxWeight(x float64) float64 {
	if x > -0.5 && x <= 0.5 {
		return 1
	}
	return 0
}

func bilinearWeight(x float64) float64 {
	if x < 0 {
		x = -x
	}
	if x < 1 {
		return 1 - x
	}
	return 0
}

// Pillow writes these as C float literals promoted to double.
var (
	hammingA = float64(float32(0.54))
	hammingB = float64(float32(0.46))
)

func hammingWeight(x float64) float64 {
	if x < 0 {
		x = -x
	}
	if x == 0 {
		return 1
	}
	if x >= 1 {
		return 0
	}
	x = float64(x * math.Pi)
	return float64(float64(math.Sin(x)/x) * (hammingA + float64(hammingB*math.Cos(x))))
}

// bicubicWeight is Pillow's cubic convolution with a = -0.5:
// ((1.5·u − 2.5)·u)·u + 1 for u < 1 and (((u − 5)·u + 8)·u − 4)·a for u < 2.
func bicubicWeight(x float64) float64 {
	const a = -0.5
	if x < 0 {
		x = -x
	}
	if x < 1 {
		t := float64(1.5*x) - 2.5
		t = float64(t * x)
		return float64(t*x) + 1
	}
	if x < 2 {
		t := float64((x-5)*x) + 8
		t = float64(t*x) - 4
		return float64(t * a)
	}
	return 0
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	x = float64(x * math.Pi)
	return math.Sin(x) / x
}

func lanczosWeight(x float64) float64 {
	if -3 <= x && x < 3 {
		return float64(sinc(x) * sinc(x/3))
	}
	return 0
}
