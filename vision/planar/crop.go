package planar

import "github.com/mmgate/mmgate/imaging"

// Crop returns the w×h window of img whose top-left corner is at (x, y);
// samples outside img are 0. A window of whole rows inside img shares img's
// memory; any other window is a copy.
func Crop(img *imaging.RGB, x, y, w, h int) *imaging.RGB {
	stride := img.Stride()
	if x == 0 && w == img.Width && y >= 0 && y+h <= img.Height {
		return &imaging.RGB{Pix: img.Pix[y*stride : (y+h)*stride : (y+h)*stride], Width: w, Height: h}
	}
	out := imaging.NewRGB(w, h)
	a, b := span(x, w, img.Width)
	for r := range h {
		sy := y + r
		if sy < 0 || sy >= img.Height || a == b {
			continue
		}
		copy(out.Row(r)[3*a:3*b], img.Pix[sy*stride+3*(x+a):sy*stride+3*(x+b)])
	}
	return out
}
