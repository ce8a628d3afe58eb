package media

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"strings"
)

// decodeGIF decodes the first frame with image/gif and lays it out as
// Pillow 9.4 opens a GIF: mode P on the logical screen, pre-filled with the
// transparent index when the frame has one (index 0 otherwise), the frame
// pasted at its offset; a transparent index becomes info["transparency"].
func decodeGIF(in *info, data []byte) (*raster, error) {
	m, err := gif.Decode(bytes.NewReader(data))
	if err != nil && strings.Contains(err.Error(), "EOF") {
		// Pillow is done once the first frame's pixels are; image/gif also
		// wants the sub-block terminator. Supply it (and the trailer) for
		// data cut right after the pixels.
		m, err = gif.Decode(bytes.NewReader(append(data[:len(data):len(data)], 0, 0x3b)))
	}
	if err != nil {
		msg := err.Error()
		switch {
		case strings.Contains(msg, "EOF"):
			return nil, truncated(FormatGIF)
		case strings.Contains(msg, "no color table"), strings.Contains(msg, "frame bounds larger"),
			strings.Contains(msg, "invalid pixel value"):
			// Pillow opens these (grey "L" pixels; a canvas grown to the
			// frame; indices past the palette); image/gif does not.
			return nil, unsupportedFormat(FormatGIF, "%v", err)
		}
		return nil, corrupt(FormatGIF, "%v", err)
	}
	pm, ok := m.(*image.Paletted)
	if !ok {
		return nil, corrupt(FormatGIF, "unexpected image type %T", m)
	}
	r := newRaster("P", layoutP, in.w, in.h)
	pal := greyRamp()
	trans := -1
	ramp := true
	for i, c := range pm.Palette {
		if i >= 256 {
			break
		}
		rgba, _ := c.(color.RGBA)
		if rgba.A == 0 { // image/gif marks the transparent index this way
			trans = i
			continue
		}
		pal[i] = [4]uint8{rgba.R, rgba.G, rgba.B, 255}
		if rgba.R != uint8(i) || rgba.G != uint8(i) || rgba.B != uint8(i) {
			ramp = false
		}
	}
	if ramp {
		r.mode = "L" // Pillow drops a palette that is the identity grey ramp
	}
	if trans >= 0 {
		r.transparent = true
		pal[trans][3] = 0
		for i := range r.pix {
			r.pix[i] = uint8(trans)
		}
	}
	r.palette = pal
	b := pm.Rect.Intersect(image.Rect(0, 0, in.w, in.h))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		src := pm.Pix[pm.PixOffset(b.Min.X, y):pm.PixOffset(b.Max.X, y)]
		copy(r.pix[y*in.w+b.Min.X:], src)
	}
	return r, nil
}
