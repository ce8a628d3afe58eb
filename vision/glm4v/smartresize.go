package glm4v

import (
	"fmt"
	"math"

	"github.com/mmgate/mmgate/vision"
)

// MaxAspectRatio is the largest accepted max(h, w)/min(h, w), measured after
// small sides are scaled up.
const MaxAspectRatio = 200

// maxSide bounds the sides and frame counts SmartResize takes and returns;
// with t·h·w kept under 2^53, every product stays exact and no conversion
// overflows.
const maxSide = 1 << 24

// SmartResize is GLM's smart_resize: the (height, width), multiples of
// factor, that numFrames frames of height×width are resized to.
//
// In Python's order and float64 arithmetic: fewer frames than
// temporalFactor is an error (vision.ErrTooSmall); a side under factor
// scales both by s = max(factor/h, factor/w), truncating h·s and w·s; a ratio
// over 200 wraps vision.ErrAspectRatio; h̄, w̄ round half to even to
// multiples of factor and t̄ to a multiple of temporalFactor; if t̄·h̄·w̄ >
// maxPixels, beta = √(t·h·w / maxPixels) and each side becomes
// max(factor, ⌊side/beta/factor⌋·factor); if below minPixels, beta =
// √(minPixels / (t·h·w)) and each side ⌈side·beta/factor⌉·factor. Sizes
// beyond 2^24 wrap vision.ErrTooLarge.
func SmartResize(numFrames, height, width, temporalFactor, factor, minPixels, maxPixels int) (h, w int, err error) {
	if factor < 1 || factor > maxSide || temporalFactor < 1 || minPixels < 0 || maxPixels < 1 {
		return 0, 0, fmt.Errorf("glm4v: smart_resize factor %d, temporal factor %d, pixels [%d, %d]: %w",
			factor, temporalFactor, minPixels, maxPixels, vision.ErrBadOptions)
	}
	if height <= 0 || width <= 0 || numFrames < temporalFactor {
		return 0, 0, fmt.Errorf("glm4v: smart_resize %d frames of %dx%d (temporal factor %d): %w",
			numFrames, width, height, temporalFactor, vision.ErrTooSmall)
	}
	if height > maxSide || width > maxSide || numFrames > maxSide {
		return 0, 0, fmt.Errorf("glm4v: smart_resize %d frames of %dx%d: %w", numFrames, width, height, vision.ErrTooLarge)
	}
	F := float64(factor)
	if height < factor || width < factor {
		s := math.Max(F/float64(height), F/float64(width))
		height, width = int(float64(height)*s), int(float64(width)*s)
	}
	hi, lo := max(height, width), min(height, width)
	if lo < 1 || float64(hi)/float64(lo) > MaxAspectRatio {
		return 0, 0, fmt.Errorf("glm4v: smart_resize %dx%d: %w (%d/%d)", width, height, vision.ErrAspectRatio, hi, lo)
	}
	H, W := float64(height), float64(width)
	if float64(numFrames+temporalFactor)*(H+F)*(W+F) > 1<<53 {
		return 0, 0, fmt.Errorf("glm4v: smart_resize %d frames of %dx%d: %w", numFrames, width, height, vision.ErrTooLarge)
	}
	h = int(math.RoundToEven(H/F)) * factor
	w = int(math.RoundToEven(W/F)) * factor
	t := int(math.RoundToEven(float64(numFrames)/float64(temporalFactor))) * temporalFactor
	vol := numFrames * height * width
	switch {
	case t*h*w > maxPixels:
		beta := math.Sqrt(float64(vol) / float64(maxPixels))
		h = max(factor, int(math.Floor(H/beta/F))*factor)
		w = max(factor, int(math.Floor(W/beta/F))*factor)
	case t*h*w < minPixels:
		beta := math.Sqrt(float64(minPixels) / float64(vol))
		hu, wu := math.Ceil(float64(H*beta)/F), math.Ceil(float64(W*beta)/F)
		if !(hu*F <= maxSide && wu*F <= maxSide) {
			return 0, 0, fmt.Errorf("glm4v: smart_resize %dx%d with min pixels %d: %w", width, height, minPixels, vision.ErrTooLarge)
		}
		h, w = int(hu)*factor, int(wu)*factor
	}
	if h <= 0 || w <= 0 || h > maxSide || w > maxSide {
		return 0, 0, fmt.Errorf("glm4v: smart_resize %dx%d gives %dx%d: %w", width, height, w, h, vision.ErrTooLarge)
	}
	return h, w, nil
}
