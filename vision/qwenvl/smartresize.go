package qwenvl

import (
	"fmt"
	"math"

	"github.com/mmgate/mmgate/vision"
)

// MaxAspectRatio is the largest accepted max(H,W)/min(H,W).
const MaxAspectRatio = 200

// maxSide bounds every side SmartResize computes, so that no float64 → int
// conversion or product can overflow; larger results wrap
// vision.ErrTooLarge.
const maxSide = 1 << 24

// side converts a float64 side count (already floored or ceiled) times
// factor to an int, refusing results beyond maxSide.
func side(units float64, factor int) (int, bool) {
	if !(units*float64(factor) <= maxSide) {
		return 0, false
	}
	return int(units) * factor, true
}

// SmartResize is transformers v5 smart_resize for images: it returns the
// (height, width) an H×W image is resized to, both multiples of factor, with
// h·w kept within [minPixels, maxPixels] where possible.
//
// All arithmetic is float64 in Python's operation order, with
// round-half-to-even. An aspect ratio over 200 wraps vision.ErrAspectRatio;
// a zero-sized input, or a side that comes out 0 (only when minPixels ≤ 0),
// wraps vision.ErrTooSmall; a side over 2^24 (a huge minPixels) wraps
// vision.ErrTooLarge. maxPixels is a float64 because video paths pass
// a fractional budget.
func SmartResize(height, width, factor int, minPixels, maxPixels float64) (h, w int, err error) {
	if height <= 0 || width <= 0 {
		return 0, 0, fmt.Errorf("qwenvl: smart_resize %dx%d: %w", width, height, vision.ErrTooSmall)
	}
	if height > maxSide || width > maxSide {
		return 0, 0, fmt.Errorf("qwenvl: smart_resize %dx%d: %w", width, height, vision.ErrTooLarge)
	}
	if factor <= 0 || factor > maxSide {
		return 0, 0, fmt.Errorf("qwenvl: smart_resize factor %d: %w", factor, vision.ErrBadOptions)
	}
	if math.IsNaN(minPixels) || !(maxPixels > 0) {
		return 0, 0, fmt.Errorf("qwenvl: smart_resize pixel bounds [%v, %v]: %w", minPixels, maxPixels, vision.ErrBadOptions)
	}
	hi, lo := max(height, width), min(height, width)
	if float64(hi)/float64(lo) > MaxAspectRatio {
		return 0, 0, fmt.Errorf("qwenvl: smart_resize %dx%d: %w (%d/%d)", width, height, vision.ErrAspectRatio, hi, lo)
	}
	H, W, F := float64(height), float64(width), float64(factor)
	h = int(math.RoundToEven(H/F)) * factor
	w = int(math.RoundToEven(W/F)) * factor
	area := float64(height * width)
	switch {
	case float64(h*w) > maxPixels:
		beta := math.Sqrt(area / maxPixels)
		h = max(factor, int(math.Floor(H/beta/F))*factor)
		w = max(factor, int(math.Floor(W/beta/F))*factor)
	case float64(h*w) < minPixels:
		beta := math.Sqrt(minPixels / area)
		var okH, okW bool
		h, okH = side(math.Ceil(float64(H*beta)/F), factor)
		w, okW = side(math.Ceil(float64(W*beta)/F), factor)
		if !okH || !okW {
			return 0, 0, fmt.Errorf("qwenvl: smart_resize %dx%d with min_pixels %v: %w", width, height, minPixels, vision.ErrTooLarge)
		}
	}
	if h <= 0 || w <= 0 {
		return 0, 0, fmt.Errorf("qwenvl: smart_resize %dx%d gives %dx%d: %w", width, height, w, h, vision.ErrTooSmall)
	}
	return h, w, nil
}
