package llavanext

import (
	"fmt"
	"math"
	"math/big"

	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/planar"
)

// BestResolution is select_best_resolution for an h×w image: the pinpoint
// (height, width) whose downscaled copy keeps the most pixels, then wastes
// the least, the first listed winning ties. ok is false only for an empty
// list: when no pinpoint keeps a pixel, the first listed still wins (its
// waste is under the initial +∞).
func BestResolution(h, w int, pinpoints [][2]int) (best [2]int, ok bool) {
	maxEff, minWaste := 0, math.MaxInt
	for _, p := range pinpoints {
		scale := math.Min(float64(p[1])/float64(w), float64(p[0])/float64(h))
		dw, dh := int(float64(w)*scale), int(float64(h)*scale)
		eff := min(dw*dh, w*h)
		waste := p[0]*p[1] - eff
		if eff > maxEff || (eff == maxEff && waste < minWaste) {
			maxEff, minWaste, best, ok = eff, waste, p, true
		}
	}
	return best, ok
}

// PatchOutputSize is get_patch_output_size: the (height, width) an h×w
// image is resized to inside the target (height, width), keeping its
// aspect ratio.
func PatchOutputSize(h, w int, target [2]int) (int, int) {
	th, tw := target[0], target[1]
	scaleW := float64(tw) / float64(w)
	scaleH := float64(th) / float64(h)
	if scaleW < scaleH {
		return min(int(math.Ceil(float64(h)*scaleW)), th), tw
	}
	return th, min(int(math.Ceil(float64(w)*scaleH)), tw)
}

// Round7 is Python's int(round(x, 7)) for x ≥ 0: the integer part of x
// rounded to seven decimal places. round works on the exact decimal value
// of the double, so the integer part grows exactly when x's fractional part
// is at least 0.99999995 (which no double equals, so there is no tie).
func Round7(x float64) int {
	f := math.Floor(x)
	frac := x - f // exact
	// 1 − 0.5·10⁻⁷: a fractional part at or over it rounds up at seven
	// decimals.
	if frac != 0 && new(big.Rat).SetFloat64(frac).Cmp(big.NewRat(19999999, 20000000)) >= 0 {
		f++
	}
	return int(f)
}

// Tokens is LlavaNextProcessor's image-token count for an h×w image whose
// best pinpoint is best and whose views are viewH×viewW after the CLIP
// steps. A pinpoint smaller than a view leaves no grid (upstream divides by
// zero then): the count is an error.
func (c *Config) Tokens(h, w int, best [2]int, viewH, viewW int) (int, error) {
	ph, pw := viewH/c.Prompt.PatchSize, viewW/c.Prompt.PatchSize
	rows, cols := ph*(best[0]/viewH), pw*(best[1]/viewW)
	if rows <= 0 || cols <= 0 {
		return 0, fmt.Errorf("pinpoint %v leaves a %dx%d feature grid for %dx%d views: %w",
			best, cols, rows, viewW, viewH, vision.ErrUnsupported)
	}
	if float64(w)/float64(h) > float64(cols)/float64(rows) {
		nh := Round7(float64(h) * (float64(cols) / float64(w)))
		rows -= planar.FloorDiv(rows-nh, 2) * 2
	} else {
		nw := Round7(float64(w) * (float64(rows) / float64(h)))
		cols -= planar.FloorDiv(cols-nw, 2) * 2
	}
	n := rows*cols + rows + ph*pw + c.Prompt.NumAdditionalImageTokens
	if c.Prompt.Strategy == "default" {
		n--
	}
	return n, nil
}
