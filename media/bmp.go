package media

import (
	"encoding/binary"
	"fmt"
)

// bmpHeader is the part of a BMP header Pillow 9.4's BmpImagePlugin acts on.
type bmpHeader struct {
	bits        int
	compression uint32
	topDown     bool
	rawMode     string // Pillow raw mode for direct colour: BGR, BGRX, BGRA, …
	palette     []byte // palette bytes for ≤ 8 bits
	padding     int    // bytes per palette entry (3 or 4)
	colors      int
	offset      int // pixel data offset
}

func unsupportedBMP(msg string, args ...any) error {
	return unsupportedFormat(FormatBMP, msg, args...)
}

func unsupportedFormat(format, msg string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", format, fmt.Sprintf(msg, args...), ErrUnsupported)
}

// probeBMP parses the file and info headers as Pillow's _bitmap does.
func probeBMP(d []byte) (*info, error) {
	if len(d) < 18 {
		return nil, truncated(FormatBMP)
	}
	le := binary.LittleEndian
	h := &bmpHeader{offset: int(le.Uint32(d[10:]))}
	in := &info{format: FormatBMP, bmp: h}
	hs := int(le.Uint32(d[14:]))
	if hs < 12 || len(d)-18 < hs-4 {
		return nil, truncated(FormatBMP)
	}
	hd := d[18 : 14+hs]
	pos := 14 + hs
	switch hs {
	case 12:
		in.w, in.h = int(le.Uint16(hd[0:])), int(le.Uint16(hd[2:]))
		h.bits = int(le.Uint16(hd[6:]))
		h.padding = 3
	case 40, 64, 108, 124:
		in.w = int(int32(le.Uint32(hd[0:])))
		hv := le.Uint32(hd[4:])
		if hd[7] == 0xff {
			h.topDown = true
			hv = -hv
		}
		in.h = int(int32(hv))
		h.bits = int(le.Uint16(hd[10:]))
		h.compression = le.Uint32(hd[12:])
		h.colors = int(le.Uint32(hd[28:]))
		h.padding = 4
		if h.compression == 3 { // BITFIELDS
			var masks [4]uint32
			var err error
			if masks, pos, err = readBMPMasks(d, hd, pos); err != nil {
				return nil, err
			}
			if h.rawMode = bitfieldsRawMode(h.bits, masks); h.rawMode == "" {
				return nil, unsupportedBMP("%d-bit bitfields layout %x", h.bits, masks)
			}
		} else if h.compression != 0 {
			return nil, unsupportedBMP("compression %d", h.compression)
		}
	default:
		return nil, unsupportedBMP("header size %d", hs)
	}
	if h.colors == 0 && h.bits <= 8 {
		h.colors = 1 << h.bits
	}
	if h.offset == 14+hs && h.bits <= 8 {
		h.offset += 4 * h.colors
	}
	switch h.bits {
	case 1, 4, 8:
		if h.colors <= 0 || h.colors > 65536 {
			return nil, corrupt(FormatBMP, "palette size %d", h.colors)
		}
		n := h.padding * h.colors
		if len(d)-pos < n {
			return nil, truncated(FormatBMP)
		}
		h.palette = d[pos : pos+n]
		pos += n
	case 24:
		if h.rawMode == "" {
			h.rawMode = "BGR"
		}
	case 32:
		if h.rawMode == "" {
			h.rawMode = "BGRX"
		}
	default:
		return nil, unsupportedBMP("%d-bit pixels", h.bits)
	}
	if h.offset == 0 {
		h.offset = pos
	}
	return in, nil
}

// readBMPMasks reads the BITFIELDS masks: from the info header hd when it
// holds them, else from the 12 bytes at pos, after it. It returns the
// position after what it read.
func readBMPMasks(d, hd []byte, pos int) ([4]uint32, int, error) {
	le := binary.LittleEndian
	var masks [4]uint32
	if len(hd) >= 52 {
		for i := range masks {
			masks[i] = le.Uint32(hd[36+4*i:])
		}
		return masks, pos, nil
	}
	if len(d)-pos < 12 {
		return masks, pos, truncated(FormatBMP)
	}
	for i := 0; i < 3; i++ {
		masks[i] = le.Uint32(d[pos+4*i:])
	}
	return masks, pos + 12, nil
}

// bitfieldsRawMode is the raw mode Pillow unpacks a BITFIELDS layout of
// bits-deep pixels with, or "" for a layout it does not read.
func bitfieldsRawMode(bits int, masks [4]uint32) string {
	switch {
	case bits == 32 && masks == [4]uint32{0xff0000, 0xff00, 0xff, 0}:
		return "BGRX"
	case bits == 32 && masks == [4]uint32{0xff000000, 0xff0000, 0xff00, 0}:
		return "XBGR"
	case bits == 32 && masks == [4]uint32{0xff000000, 0xff0000, 0xff00, 0xff}:
		return "ABGR"
	case bits == 32 && masks == [4]uint32{0xff, 0xff00, 0xff0000, 0xff000000}:
		return "RGBA"
	case bits == 32 && (masks == [4]uint32{0xff0000, 0xff00, 0xff, 0xff000000} || masks == [4]uint32{}):
		return "BGRA"
	case bits == 24 && [3]uint32(masks[:3]) == [3]uint32{0xff0000, 0xff00, 0xff}:
		return "BGR"
	}
	return ""
}

// decodeBMP reads uncompressed BMP pixels in Pillow's mode: palette images
// whose palette is the grey ramp open as "1" or "L", others as "P"; 24-bit
// and 32-bit without alpha mask as "RGB"; 32-bit with alpha as "RGBA".
func decodeBMP(in *info, d []byte) (*raster, error) {
	h := in.bmp
	w, ht := in.w, in.h
	stride := ((w*h.bits + 31) >> 3) &^ 3
	// Pillow's raw decoder stops after the last row's pixels: the padding
	// of the last row in the file may be missing.
	need := int64(stride)*int64(ht-1) + int64((w*h.bits+7)>>3)
	if h.offset < 0 || h.offset > len(d) || int64(len(d)-h.offset) < need {
		return nil, truncated(FormatBMP)
	}
	row := func(y int) []byte { // file row for image row y
		if !h.topDown {
			y = ht - 1 - y
		}
		return d[h.offset+y*stride : min(h.offset+(y+1)*stride, len(d))]
	}
	if h.bits <= 8 {
		r := newRaster("P", layoutP, w, ht)
		pal := greyRamp()
		grey := true
		for i := 0; i < h.colors; i++ {
			e := h.palette[i*h.padding:]
			v := uint8(i)
			if h.colors == 2 {
				v = uint8(255 * i)
			}
			if e[0] != v || e[1] != v || e[2] != v {
				grey = false
			}
			if i < 256 {
				pal[i] = [4]uint8{e[2], e[1], e[0], 255}
			}
		}
		if grey {
			if h.colors == 2 {
				r.mode = "1"
			} else {
				r.mode = "L"
				if h.bits != 8 { // Pillow would read the packed bits as bytes
					return nil, unsupportedBMP("%d-bit grey palette", h.bits)
				}
			}
		}
		r.palette = pal
		per, mask := 8/h.bits, byte(1<<h.bits-1)
		for y := 0; y < ht; y++ {
			src, out := row(y), r.pix[y*w:(y+1)*w]
			for x := range out {
				out[x] = src[x/per] >> (8 - h.bits*(x%per+1)) & mask
			}
		}
		return r, nil
	}
	alpha := h.rawMode == "BGRA" || h.rawMode == "ABGR" || h.rawMode == "RGBA"
	r := newRaster("RGB", layoutRGB, w, ht)
	if alpha {
		r = newRaster("RGBA", layoutRGBA, w, ht)
	}
	// Source byte index of R, G, B, A within a pixel.
	var idx [4]int
	switch h.rawMode {
	case "BGR", "BGRX", "BGRA":
		idx = [4]int{2, 1, 0, 3}
	case "XBGR", "ABGR":
		idx = [4]int{3, 2, 1, 0}
	case "RGBA":
		idx = [4]int{0, 1, 2, 3}
	}
	sb, ob := h.bits/8, layoutBytes[r.layout]
	for y := 0; y < ht; y++ {
		src, out := row(y), r.pix[y*w*ob:(y+1)*w*ob]
		for x := 0; x < w; x++ {
			s, o := src[x*sb:x*sb+sb], out[x*ob:x*ob+ob]
			for c := 0; c < ob; c++ {
				o[c] = s[idx[c]]
			}
		}
	}
	return r, nil
}
