package gemma3

import "math"

// Crop is one pan-and-scan crop: a rectangle of the post-EXIF image.
type Crop struct{ X, Y, W, H int }

// Crops returns the pan-and-scan crops of a width×height image, in the
// processor's order (row by row), or none when pan-and-scan is off or does
// not apply. A crop is never empty for the settings Validate accepts and a
// long side of at least MinCropSize; cropsOf reports an empty one as ok=false.
func (ps PanAndScan) Crops(width, height int) []Crop {
	crops, _ := ps.cropsOf(width, height)
	return crops
}

func (ps PanAndScan) cropsOf(width, height int) (crops []Crop, ok bool) {
	cols, rows := ps.grid(width, height)
	if cols == 0 {
		return nil, true
	}
	cw := int(math.Ceil(float64(width) / float64(cols)))
	ch := int(math.Ceil(float64(height) / float64(rows)))
	if min(cw, ch) < ps.MinCropSize {
		return nil, true
	}
	crops = make([]Crop, 0, cols*rows)
	for r := range rows {
		for c := range cols {
			x, y := c*cw, r*ch
			w, h := min(cw, width-x), min(ch, height-y)
			if w <= 0 || h <= 0 {
				return nil, false
			}
			crops = append(crops, Crop{X: x, Y: y, W: w, H: h})
		}
	}
	return crops, true
}

// grid is the crop grid (cols, rows) before the crop-size check, or (0, 0)
// when pan-and-scan is off or the aspect ratio is under the threshold.
func (ps PanAndScan) grid(width, height int) (cols, rows int) {
	if !ps.Enabled || width <= 0 || height <= 0 {
		return 0, 0
	}
	long, short := width, height
	if width < height {
		long, short = height, width
	}
	ratio := float64(long) / float64(short)
	if ratio < ps.MinRatioToActivate {
		return 0, 0
	}
	n := int(math.Floor(ratio + 0.5))
	n = min(int(math.Floor(float64(long)/float64(ps.MinCropSize))), n)
	n = max(2, n)
	n = min(ps.MaxNumCrops, n)
	if width >= height {
		return n, 1
	}
	return 1, n
}
