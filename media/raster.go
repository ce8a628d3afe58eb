package media

import "github.com/mmgate/mmgate/imaging"

// layout is how a raster stores one pixel.
type layout uint8

const (
	layoutRGB  layout = iota // R, G, B
	layoutRGBA               // R, G, B, straight alpha
	layoutL                  // grey (Pillow "1" stored as 0/255, "I" stored as min(v, 255))
	layoutLA                 // grey, alpha
	layoutP                  // palette index; palette holds RGBA entries
	layoutCMYK               // C, M, Y, K as Pillow holds them (not inverted)
)

var layoutBytes = [...]int{layoutRGB: 3, layoutRGBA: 4, layoutL: 1, layoutLA: 2, layoutP: 1, layoutCMYK: 4}

// raster is a decoded image in (an 8-bit projection of) its Pillow mode,
// before orientation and mode conversion.
type raster struct {
	mode   string // Pillow mode name reported as Image.SourceMode
	layout layout
	w, h   int
	pix    []uint8 // w*h*layoutBytes[layout], packed rows

	// palette is 256 RGBA entries for layoutP. Entries the file does not
	// define hold Pillow's default grey ramp (i, i, i, 255); alpha is 255
	// unless a transparency entry lowered it.
	palette *[256][4]uint8

	// transparent reports Pillow's info["transparency"]: for layoutP the
	// alphas are in palette; for layoutL and layoutRGB key holds the raw
	// transparency value(s), compared (low byte only, as Pillow's
	// convert_transparent does) with each pixel converted to RGB.
	transparent bool
	key         [3]int
}

func newRaster(mode string, l layout, w, h int) *raster {
	return &raster{mode: mode, layout: l, w: w, h: h, pix: make([]uint8, w*h*layoutBytes[l])}
}

// greyRamp returns a palette initialised as Pillow initialises one.
func greyRamp() *[256][4]uint8 {
	var p [256][4]uint8
	for i := range p {
		v := uint8(i)
		p[i] = [4]uint8{v, v, v, 255}
	}
	return &p
}

// hasTransparency is the reference loader's test: mode RGBA, LA or PA, or an
// info["transparency"] entry.
func (r *raster) hasTransparency() bool {
	return r.layout == layoutRGBA || r.layout == layoutLA || r.transparent
}

// div255 is Pillow's rounding division by 255 (ImagingUtils.h DIV255 and
// MULDIV255 once the product is formed).
func div255(x int) int {
	t := x + 128
	return ((t >> 8) + t) >> 8
}

// blend is Pillow's paste_mask_L for one channel: background bg, source s,
// alpha a.
func blend(bg, s, a int) uint8 {
	return uint8(div255(bg*(255-a) + s*a))
}

// cmykToRGB is Pillow's cmyk2rgb for one pixel.
func cmykToRGB(c, m, y, k uint8) (uint8, uint8, uint8) {
	nk := 255 - int(k)
	return clip8(nk - div255(int(c)*nk)), clip8(nk - div255(int(m)*nk)), clip8(nk - div255(int(y)*nk))
}

func clip8(v int) uint8 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}

// toRGB converts the raster as the reference loader does: composite onto bg
// when it has transparency, convert("RGB") otherwise. When the raster is
// already RGB without transparency its pixel buffer is reused.
func (r *raster) toRGB(bg [3]uint8) *imaging.RGB {
	if r.layout == layoutRGB && !r.transparent {
		return &imaging.RGB{Pix: r.pix, Width: r.w, Height: r.h}
	}
	out := &imaging.RGB{Pix: make([]uint8, r.w*r.h*3), Width: r.w, Height: r.h}
	dst := out.Pix
	src := r.pix
	n := r.w * r.h
	b0, b1, b2 := int(bg[0]), int(bg[1]), int(bg[2])
	comp := r.hasTransparency()
	switch r.layout {
	case layoutRGB: // with a transparency key
		k0, k1, k2 := uint8(r.key[0]), uint8(r.key[1]), uint8(r.key[2])
		for i := 0; i < n; i++ {
			s := src[i*3 : i*3+3 : i*3+3]
			d := dst[i*3 : i*3+3 : i*3+3]
			if s[0] == k0 && s[1] == k1 && s[2] == k2 {
				d[0], d[1], d[2] = blend(b0, int(s[0]), 0), blend(b1, int(s[1]), 0), blend(b2, int(s[2]), 0)
			} else {
				d[0], d[1], d[2] = s[0], s[1], s[2]
			}
		}
	case layoutRGBA:
		// blend(bg, s, 255) == s and blend(bg, s, 0) == bg exactly (div255
		// rounds x/255 correctly), so opaque and clear pixels skip the maths.
		for i := 0; i < n; i++ {
			s := src[i*4 : i*4+4 : i*4+4]
			d := dst[i*3 : i*3+3 : i*3+3]
			switch a := int(s[3]); a {
			case 255:
				d[0], d[1], d[2] = s[0], s[1], s[2]
			case 0:
				d[0], d[1], d[2] = bg[0], bg[1], bg[2]
			default:
				d[0], d[1], d[2] = blend(b0, int(s[0]), a), blend(b1, int(s[1]), a), blend(b2, int(s[2]), a)
			}
		}
	case layoutL:
		k := uint8(r.key[0])
		for i := 0; i < n; i++ {
			v := src[i]
			d := dst[i*3 : i*3+3 : i*3+3]
			if comp && v == k {
				d[0], d[1], d[2] = blend(b0, int(v), 0), blend(b1, int(v), 0), blend(b2, int(v), 0)
			} else {
				d[0], d[1], d[2] = v, v, v
			}
		}
	case layoutLA:
		for i := 0; i < n; i++ {
			v, a := int(src[i*2]), int(src[i*2+1])
			d := dst[i*3 : i*3+3 : i*3+3]
			d[0], d[1], d[2] = blend(b0, v, a), blend(b1, v, a), blend(b2, v, a)
		}
	case layoutP:
		r.paletteToRGB(dst, bg, comp)
	case layoutCMYK:
		for i := 0; i < n; i++ {
			s := src[i*4 : i*4+4 : i*4+4]
			d := dst[i*3 : i*3+3 : i*3+3]
			d[0], d[1], d[2] = cmykToRGB(s[0], s[1], s[2], s[3])
		}
	}
	return out
}

// paletteToRGB is toRGB of a palette raster into dst: each pixel its
// entry, or with comp (transparency) its entry composited onto bg.
func (r *raster) paletteToRGB(dst []uint8, bg [3]uint8, comp bool) {
	src := r.pix
	n := r.w * r.h
	b0, b1, b2 := int(bg[0]), int(bg[1]), int(bg[2])
	pal := r.palette
	if pal == nil {
		pal = greyRamp()
	}
	if !comp {
		for i := 0; i < n; i++ {
			e := &pal[src[i]]
			d := dst[i*3 : i*3+3 : i*3+3]
			d[0], d[1], d[2] = e[0], e[1], e[2]
		}
		return
	}
	// convert("RGBA") puts the transparency alphas into the palette, then
	// every pixel is pasted with its entry's alpha.
	var lut [256][3]uint8
	for i, e := range pal {
		a := int(e[3])
		lut[i] = [3]uint8{blend(b0, int(e[0]), a), blend(b1, int(e[1]), a), blend(b2, int(e[2]), a)}
	}
	for i := 0; i < n; i++ {
		c := &lut[src[i]]
		d := dst[i*3 : i*3+3 : i*3+3]
		d[0], d[1], d[2] = c[0], c[1], c[2]
	}
}
