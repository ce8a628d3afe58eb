package internvl

import (
	"math"
	"sort"
)

// grid is a tile arrangement: cols tiles across, rows down.
type grid struct{ cols, rows int }

// candidates lists the arrangements get_all_supported_aspect_ratios gives:
// every (cols, rows) with minTiles ≤ cols·rows ≤ maxTiles, cols-outer and
// rows-inner, then stably sorted by cols·rows.
func candidates(minTiles, maxTiles int) []grid {
	var out []grid
	for c := 1; c <= maxTiles; c++ {
		for r := 1; r <= maxTiles; r++ {
			if n := c * r; n >= minTiles && n <= maxTiles {
				out = append(out, grid{c, r})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].cols*out[i].rows < out[j].cols*out[j].rows })
	return out
}

// bestGrid is get_optimal_tiled_canvas for a width×height image and
// tileW×tileH tiles over the candidates cands: the arrangement whose
// cols/rows is closest to width/height; on an exact tie a later candidate
// replaces the best one when the image's area exceeds half the area its
// tiles would cover. (1, 1) when cands is empty.
func bestGrid(width, height, tileW, tileH int, cands []grid) grid {
	aspect := float64(width) / float64(height)
	area := float64(width) * float64(height)
	best, bestDiff := grid{1, 1}, math.Inf(1)
	for _, g := range cands {
		diff := math.Abs(aspect - float64(g.cols)/float64(g.rows))
		switch {
		case diff < bestDiff:
			best, bestDiff = g, diff
		case diff == bestDiff:
			if area > 0.5*float64(tileH)*float64(tileW)*float64(g.cols)*float64(g.rows) {
				best = g
			}
		}
	}
	return best
}
