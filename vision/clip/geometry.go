package clip

import (
	"context"
	"fmt"
	"time"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/planar"
)

// Geometry is where one image goes through the CLIP steps: the size after
// the resize (the source size when there is no resize) and the crop window
// in the resized image, which reaches outside it where center_crop pads.
type Geometry struct {
	ResizeW, ResizeH int
	X, Y, W, H       int
}

// Geometry plans a width×height image.
func (c *ImageConfig) Geometry(width, height int) Geometry {
	rw, rh := width, height
	if c.DoResize {
		rh, rw = c.resizeSize(height, width)
	}
	g := Geometry{ResizeW: rw, ResizeH: rh, W: rw, H: rh}
	if c.DoCenterCrop {
		g.W, g.H = c.CropWidth, c.CropHeight
		g.X, g.Y = planar.FloorDiv(rw-g.W, 2), planar.FloorDiv(rh-g.H, 2)
	}
	return g
}

// resizeSize is PilBackend.resize's target (height, width): with a
// shortest edge s, get_resize_output_image_size(default_to_square=False).
func (c *ImageConfig) resizeSize(h, w int) (int, int) {
	s := c.Size.ShortestEdge
	if s == 0 {
		return c.Size.Height, c.Size.Width
	}
	short, long := w, h
	if w > h {
		short, long = h, w
	}
	newLong := int(float64(s*long) / float64(short))
	if w <= h {
		return newLong, s
	}
	return s, newLong
}

// View resizes src as g says (into a new image, unless the size is
// unchanged) and returns g's crop window over it, with the time spent
// resizing.
func (c *ImageConfig) View(ctx context.Context, r vision.Resizer, src *imaging.RGB, g Geometry) (planar.View, time.Duration, error) {
	img := src
	var d time.Duration
	if g.ResizeW != src.Width || g.ResizeH != src.Height {
		t0 := time.Now()
		img = imaging.NewRGB(g.ResizeW, g.ResizeH)
		if err := r.ResizeInto(ctx, img, src, c.Resample); err != nil {
			return planar.View{}, 0, fmt.Errorf("resize: %w", err)
		}
		d = time.Since(t0)
	}
	return planar.View{Src: img, X: g.X, Y: g.Y, W: g.W, H: g.H}, d, nil
}
