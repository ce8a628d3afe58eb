package media

import (
	"encoding/binary"
	"fmt"
)

// Header is what Probe learns from an image's headers without decoding it.
type Header struct {
	Format string // FormatJPEG, FormatPNG, …
	// Width and Height are the size of the decoded image: after the EXIF
	// orientation, unless Options.NoEXIF.
	Width, Height int
	// Orientation is the EXIF orientation Decode applies, 1–8 (1: none).
	Orientation int
}

// info is the internal result of probing: the stored size and what the
// format decoders need to know.
type info struct {
	format      string
	w, h        int
	orientation int // 1–8, from the format's EXIF
	// preOrient is an orientation the format's decoder itself applies:
	// Pillow 9.4's TIFF plugin transposes by the orientation tag when it
	// loads, before exif_transpose applies the same tag again.
	preOrient int
	png       *pngHeader
	bmp       *bmpHeader
	webpAnim  bool
	webpAlpha bool
	webpLossy bool
	jpegScan  int // offset of the first scan's entropy-coded data
	jpegComps int
	// jpegProgressive: a progressive frame, whose decoder reads every
	// scan before the first row comes out.
	jpegProgressive bool
}

func corrupt(format, msg string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", format, fmt.Sprintf(msg, args...), ErrCorrupt)
}

func truncated(format string) error {
	return fmt.Errorf("%s: %w", format, ErrTruncated)
}

// probe sniffs the format and parses its header. On error the returned info
// may still be non-nil with the size filled in, so that callers can report
// an image over the pixel cap as too large rather than as truncated.
func probe(data []byte) (*info, error) {
	var in *info
	var err error
	switch f := Sniff(data); f {
	case FormatJPEG:
		in, err = probeJPEG(data)
	case FormatPNG:
		in, err = probePNG(data)
	case FormatGIF:
		in, err = probeGIF(data)
	case FormatBMP:
		in, err = probeBMP(data)
	case FormatTIFF:
		in, err = probeTIFF(data)
	case FormatWebP:
		in, err = probeWebP(data)
	default:
		return nil, ErrUnsupported
	}
	if err != nil {
		return in, err
	}
	if in.w <= 0 || in.h <= 0 {
		return nil, corrupt(in.format, "image size %dx%d", in.w, in.h)
	}
	if in.orientation == 0 {
		in.orientation = 1
	}
	return in, nil
}

// probeJPEG walks the marker segments up to the first scan, as Pillow's
// JpegImagePlugin does, for the frame size, the component count and the
// first Exif APP1 segment.
func probeJPEG(d []byte) (*info, error) {
	in := &info{format: FormatJPEG}
	var exif []byte
	comps := 0
	dpi := false // Pillow's info["dpi"] from a JFIF segment with unit 1
	p := 2
	for {
		// Skip anything up to a 0xFF, then fill bytes.
		for p < len(d) && d[p] != 0xff {
			p++
		}
		for p < len(d) && d[p] == 0xff {
			p++
		}
		if p >= len(d) {
			return nil, truncated(FormatJPEG)
		}
		m := d[p]
		p++
		if m == 0x00 || m == 0x01 || (m >= 0xd0 && m <= 0xd7) || m == 0xd8 {
			continue // stuffed byte, TEM, RSTn, SOI: no length
		}
		if m == 0xd9 {
			return nil, corrupt(FormatJPEG, "end of image before any scan")
		}
		if len(d)-p < 2 {
			return nil, truncated(FormatJPEG)
		}
		n := int(binary.BigEndian.Uint16(d[p:]))
		if n < 2 {
			return nil, corrupt(FormatJPEG, "marker 0x%02x length %d", m, n)
		}
		if len(d)-p < n {
			return nil, truncated(FormatJPEG)
		}
		seg := d[p+2 : p+n]
		p += n
		switch {
		case m == 0xe0 && len(seg) >= 12 && string(seg[:4]) == "JFIF":
			dpi = dpi || seg[7] == 1
		case m == 0xe1 && exif == nil && len(seg) >= 5 && string(seg[:5]) == "Exif\x00":
			exif = seg
			if !dpi && exifRaises(exif) {
				return nil, corrupt(FormatJPEG, "EXIF header Pillow cannot unpack")
			}
		case m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc:
			if len(seg) < 6 {
				return nil, corrupt(FormatJPEG, "short SOF segment")
			}
			in.h = int(binary.BigEndian.Uint16(seg[1:]))
			in.w = int(binary.BigEndian.Uint16(seg[3:]))
			comps = int(seg[5])
			in.jpegProgressive = m&3 == 2 // SOF2, SOF6, SOF10, SOF14
		case m == 0xda:
			if comps == 0 {
				return nil, corrupt(FormatJPEG, "scan before frame header")
			}
			if comps != 1 && comps != 3 && comps != 4 {
				return nil, fmt.Errorf("%s: %d components: %w", FormatJPEG, comps, ErrUnsupported)
			}
			if exif != nil {
				in.orientation = exifOrientation(exif)
			}
			in.jpegScan, in.jpegComps = p, comps
			return in, nil
		}
	}
}

func probeGIF(d []byte) (*info, error) {
	if len(d) < 13 {
		return nil, truncated(FormatGIF)
	}
	return &info{format: FormatGIF, w: int(binary.LittleEndian.Uint16(d[6:])), h: int(binary.LittleEndian.Uint16(d[8:]))}, nil
}

// probeTIFF reads the first IFD's size tags and orientation.
func probeTIFF(d []byte) (*info, error) {
	if len(d) < 8 {
		return nil, truncated(FormatTIFF)
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if d[0] == 'M' {
		bo = binary.BigEndian
	}
	off := uint64(bo.Uint32(d[4:8]))
	if off > uint64(len(d)) || uint64(len(d))-off < 2 {
		return nil, truncated(FormatTIFF)
	}
	n := uint64(bo.Uint16(d[off:]))
	if uint64(len(d))-off-2 < 12*n {
		return nil, truncated(FormatTIFF)
	}
	in := &info{format: FormatTIFF}
	for i := uint64(0); i < n; i++ {
		e := d[off+2+12*i:]
		tag, typ := bo.Uint16(e), bo.Uint16(e[2:])
		var v int
		switch typ {
		case 3:
			v = int(bo.Uint16(e[8:]))
		case 4:
			v = int(bo.Uint32(e[8:]) & 0x7fffffff)
		default:
			continue
		}
		switch tag {
		case 256:
			in.w = v
		case 257:
			in.h = v
		}
	}
	in.orientation = tiffOrientation(d)
	in.preOrient = in.orientation
	return in, nil
}

// probeWebP reads the RIFF chunks: the first one gives the size (canvas
// size for VP8X), and the first EXIF chunk the orientation.
func probeWebP(d []byte) (*info, error) {
	in := &info{format: FormatWebP}
	if len(d) < 20 {
		return nil, truncated(FormatWebP)
	}
	riff := uint64(binary.LittleEndian.Uint32(d[4:]))
	end := uint64(len(d))
	if riff+8 < end {
		end = riff + 8
	}
	var exif []byte
	first := true
	for p := uint64(12); p+8 <= end; {
		fourcc := string(d[p : p+4])
		n := uint64(binary.LittleEndian.Uint32(d[p+4:]))
		body := p + 8
		avail := end - body
		if first {
			if n > avail {
				return nil, truncated(FormatWebP)
			}
			c := d[body : body+n]
			switch fourcc {
			case "VP8 ":
				if len(c) < 10 || c[3] != 0x9d || c[4] != 0x01 || c[5] != 0x2a {
					return nil, corrupt(FormatWebP, "bad VP8 frame header")
				}
				in.w = int(binary.LittleEndian.Uint16(c[6:]) & 0x3fff)
				in.h = int(binary.LittleEndian.Uint16(c[8:]) & 0x3fff)
				in.webpLossy = true
			case "VP8L":
				if len(c) < 5 || c[0] != 0x2f {
					return nil, corrupt(FormatWebP, "bad VP8L header")
				}
				b := binary.LittleEndian.Uint32(c[1:])
				in.w = int(b&0x3fff) + 1
				in.h = int(b>>14&0x3fff) + 1
				in.webpAlpha = b>>28&1 == 1
			case "VP8X":
				if len(c) < 10 {
					return nil, corrupt(FormatWebP, "short VP8X chunk")
				}
				in.webpAlpha = c[0]&0x10 != 0
				in.webpAnim = c[0]&0x02 != 0
				in.w = int(uint32(c[4])|uint32(c[5])<<8|uint32(c[6])<<16) + 1
				in.h = int(uint32(c[7])|uint32(c[8])<<8|uint32(c[9])<<16) + 1
			default:
				return nil, corrupt(FormatWebP, "first chunk %q", fourcc)
			}
			first = false
		} else if fourcc == "VP8 " {
			in.webpLossy = true
		} else if fourcc == "EXIF" && exif == nil && n <= avail {
			exif = d[body : body+n]
		}
		if n > avail {
			break
		}
		p = body + n + n&1
	}
	if first {
		return nil, truncated(FormatWebP)
	}
	if exif != nil {
		in.orientation = exifOrientation(exif)
	}
	return in, nil
}
