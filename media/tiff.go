package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"io"

	"golang.org/x/image/tiff"
)

// tiffFields holds the first IFD's tags that decide Pillow's mode.
type tiffFields struct {
	photometric, spp, planar int
	bits, extra              []int
}

// readTIFFFields reads the SHORT/LONG tags the mode depends on.
func readTIFFFields(d []byte) (*tiffFields, error) {
	var bo binary.ByteOrder = binary.LittleEndian
	if d[0] == 'M' {
		bo = binary.BigEndian
	}
	f := &tiffFields{photometric: -1, spp: 1, planar: 1}
	off := uint64(bo.Uint32(d[4:8]))
	n := uint64(bo.Uint16(d[off:])) // probeTIFF checked the directory fits
	for i := uint64(0); i < n; i++ {
		e := d[off+2+12*i : off+14+12*i]
		tag, typ, count := bo.Uint16(e), bo.Uint16(e[2:]), uint64(bo.Uint32(e[4:]))
		unit := uint64(2)
		if typ == 4 {
			unit = 4
		} else if typ != 3 {
			continue
		}
		if count > 16 {
			count = 16 // only a few values of these tags are ever meaningful
		}
		vals := e[8:12]
		if count*unit > 4 {
			o := uint64(bo.Uint32(e[8:]))
			if o > uint64(len(d)) || uint64(len(d))-o < count*unit {
				return nil, truncated(FormatTIFF)
			}
			vals = d[o : o+count*unit]
		}
		v := make([]int, count)
		for j := range v {
			if unit == 2 {
				v[j] = int(bo.Uint16(vals[2*j:]))
			} else {
				v[j] = int(bo.Uint32(vals[4*j:]) & 0x7fffffff)
			}
		}
		if len(v) == 0 {
			continue
		}
		switch tag {
		case 258:
			f.bits = v
		case 262:
			f.photometric = v[0]
		case 277:
			f.spp = v[0]
		case 284:
			f.planar = v[0]
		case 338:
			f.extra = v
		}
	}
	if f.bits == nil {
		f.bits = []int{1}
	}
	return f, nil
}

// tiffMode returns Pillow's mode for the cases decoded exactly, or "".
func (f *tiffFields) mode() string {
	for _, b := range f.bits[1:] {
		if b != f.bits[0] {
			return ""
		}
	}
	b := f.bits[0]
	if f.planar != 1 {
		return ""
	}
	switch {
	case (f.photometric == 0 || f.photometric == 1) && f.spp == 1 && b == 1:
		return "1"
	case (f.photometric == 0 || f.photometric == 1) && f.spp == 1 && b == 8:
		return "L"
	case f.photometric == 3 && f.spp == 1 && (b == 1 || b == 2 || b == 4 || b == 8):
		return "P"
	case f.photometric == 2 && f.spp == 3 && b == 8:
		return "RGB"
	case f.photometric == 2 && f.spp == 4 && b == 8 && len(f.extra) == 1 && f.extra[0] == 2:
		return "RGBA"
	}
	return ""
}

// decodeTIFF decodes the first image with golang.org/x/image/tiff for the
// 8-bit layouts whose samples it returns unchanged.
func decodeTIFF(in *info, d []byte) (*raster, error) {
	f, err := readTIFFFields(d)
	if err != nil {
		return nil, err
	}
	mode := f.mode()
	if mode == "" {
		return nil, unsupportedFormat(FormatTIFF, "photometric %d, %d samples of %v bits", f.photometric, f.spp, f.bits)
	}
	m, err := decodeTIFFImage(in, d)
	if err != nil {
		return nil, err
	}
	if r := tiffRaster(mode, m, in.w, in.h); r != nil {
		return r, nil
	}
	return nil, corrupt(FormatTIFF, "unexpected image type %T for mode %s", m, mode)
}

// decodeTIFFImage decodes d with image/tiff, checking its size against
// the header's in.
func decodeTIFFImage(in *info, d []byte) (image.Image, error) {
	// image/tiff sizes its buffer from its own reading of the directory;
	// refuse anything that disagrees with the size checked against the cap.
	cfg, err := tiff.DecodeConfig(bytes.NewReader(d))
	if err == nil && (cfg.Width != in.w || cfg.Height != in.h) {
		return nil, corrupt(FormatTIFF, "ambiguous image size")
	}
	var m image.Image
	if err == nil {
		m, err = tiff.Decode(bytes.NewReader(d))
	}
	if err != nil {
		var ue tiff.UnsupportedError
		switch {
		case errors.As(err, &ue):
			return nil, unsupportedFormat(FormatTIFF, "%v", err)
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return nil, truncated(FormatTIFF)
		}
		return nil, corrupt(FormatTIFF, "%v", err)
	}
	if b := m.Bounds(); b.Dx() != in.w || b.Dy() != in.h || b.Min != (image.Point{}) {
		return nil, corrupt(FormatTIFF, "size %v differs from the header", b)
	}
	return m, nil
}

// tiffRaster copies the image/tiff image m of mode into a raster, or is
// nil when m is not of the type the mode decodes to.
func tiffRaster(mode string, m image.Image, w, h int) *raster {
	switch mode {
	case "1", "L":
		g, ok := m.(*image.Gray)
		if !ok {
			break
		}
		r := newRaster(mode, layoutL, w, h)
		for y := 0; y < h; y++ {
			copy(r.pix[y*w:(y+1)*w], g.Pix[y*g.Stride:])
		}
		return r
	case "P":
		p, ok := m.(*image.Paletted)
		if !ok {
			break
		}
		r := newRaster(mode, layoutP, w, h)
		pal := greyRamp()
		for i, c := range p.Palette {
			if i < 256 {
				cr, cg, cb, _ := c.RGBA()
				pal[i] = [4]uint8{uint8(cr >> 8), uint8(cg >> 8), uint8(cb >> 8), 255}
			}
		}
		r.palette = pal
		for y := 0; y < h; y++ {
			copy(r.pix[y*w:(y+1)*w], p.Pix[y*p.Stride:])
		}
		return r
	case "RGB":
		c, ok := m.(*image.RGBA)
		if !ok {
			break
		}
		r := newRaster(mode, layoutRGB, w, h)
		for y := 0; y < h; y++ {
			src, out := c.Pix[y*c.Stride:], r.pix[y*w*3:(y+1)*w*3]
			for x := 0; x < w; x++ {
				out[3*x], out[3*x+1], out[3*x+2] = src[4*x], src[4*x+1], src[4*x+2]
			}
		}
		return r
	case "RGBA":
		c, ok := m.(*image.NRGBA)
		if !ok {
			break
		}
		r := newRaster(mode, layoutRGBA, w, h)
		for y := 0; y < h; y++ {
			copy(r.pix[y*w*4:(y+1)*w*4], c.Pix[y*c.Stride:])
		}
		return r
	}
	return nil
}
