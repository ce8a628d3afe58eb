package media

import (
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// pngHeader is what probing a PNG gathers: IHDR, and the chunks before the
// pixel data that Pillow's PngImagePlugin reads into the image (PLTE, tRNS),
// plus the position of every IDAT chunk. A PLTE after the image data is
// ignored, as in Pillow; the last tRNS anywhere counts, and so do the
// metadata chunks pngMeta reads.
type pngHeader struct {
	depth, ctype int
	interlaced   bool
	plte         []byte
	trns         []byte
	idat         [][]byte
}

// pngModes maps (bit depth, colour type) to Pillow's mode, as PngImagePlugin._MODES does.
var pngModes = map[[2]int]string{
	{1, 0}: "1", {2, 0}: "L", {4, 0}: "L", {8, 0}: "L", {16, 0}: "I",
	{8, 2}: "RGB", {16, 2}: "RGB",
	{1, 3}: "P", {2, 3}: "P", {4, 3}: "P", {8, 3}: "P",
	{8, 4}: "LA", {16, 4}: "RGBA",
	{8, 6}: "RGBA", {16, 6}: "RGBA",
}

var pngChannels = [7]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}

// probePNG reads IHDR and walks the chunk list. Chunks before the first
// IDAT must have valid CRCs, as Pillow requires; the last eXIf chunk gives
// the orientation.
func probePNG(d []byte) (*info, error) {
	in := &info{format: FormatPNG}
	h := &pngHeader{}
	in.png = h
	var meta pngMeta
	p := 8
	seenIDAT := false
	for i := 0; ; i++ {
		if len(d)-p < 8 {
			if !seenIDAT {
				return in, truncated(FormatPNG)
			}
			break
		}
		n := int(binary.BigEndian.Uint32(d[p:]))
		typ := string(d[p+4 : p+8])
		if n < 0 || n > len(d)-p-8 {
			if typ == "IDAT" && i > 0 {
				// Cut inside the image data: Pillow succeeds if the rows
				// it needs are there, so keep what there is.
				seenIDAT = true
				h.idat = append(h.idat, d[p+8:])
				break
			}
			if !seenIDAT {
				return in, truncated(FormatPNG)
			}
			break
		}
		body := d[p+8 : p+8+n]
		if !seenIDAT && typ != "IDAT" {
			if len(d)-p-8-n < 4 {
				return in, truncated(FormatPNG)
			}
			if crc32.ChecksumIEEE(d[p+4:p+8+n]) != binary.BigEndian.Uint32(d[p+8+n:]) {
				return nil, corrupt(FormatPNG, "bad CRC in %q chunk", typ)
			}
		}
		if i == 0 {
			if err := readIHDR(in, typ, body); err != nil {
				return nil, err
			}
		}
		switch typ {
		case "IDAT":
			seenIDAT = true
			h.idat = append(h.idat, body)
		case "PLTE":
			if !seenIDAT {
				h.plte = body
			}
		case "tRNS":
			// Pillow also reads a tRNS after the image data (load_end), and
			// the transparency it records there still counts.
			h.trns = body
		case "eXIf", "tEXt", "zTXt", "iTXt":
			meta.chunk(typ, body)
		}
		p += 8 + n + 4
		if typ == "IEND" {
			break
		}
		if p > len(d) {
			break
		}
	}
	if !seenIDAT {
		return in, corrupt(FormatPNG, "no image data")
	}
	in.orientation = meta.orientation()
	return in, nil
}

// readIHDR reads the first chunk, of type typ, which must be IHDR: the
// size into in, depth, colour type and interlacing into in.png.
func readIHDR(in *info, typ string, body []byte) error {
	if typ != "IHDR" || len(body) < 13 {
		return corrupt(FormatPNG, "first chunk is %q, not IHDR", typ)
	}
	h := in.png
	in.w = int(binary.BigEndian.Uint32(body[0:]) & 0x7fffffff)
	in.h = int(binary.BigEndian.Uint32(body[4:]) & 0x7fffffff)
	h.depth, h.ctype = int(body[8]), int(body[9])
	if body[11] != 0 {
		return corrupt(FormatPNG, "unknown filter method")
	}
	h.interlaced = body[12] != 0
	if _, ok := pngModes[[2]int{h.depth, h.ctype}]; !ok {
		return fmt.Errorf("%s: bit depth %d, colour type %d: %w", FormatPNG, h.depth, h.ctype, ErrUnsupported)
	}
	return nil
}

// idatReader concatenates the IDAT chunk bodies.
type idatReader struct {
	chunks [][]byte
}

func (r *idatReader) Read(p []byte) (int, error) {
	for len(r.chunks) > 0 && len(r.chunks[0]) == 0 {
		r.chunks = r.chunks[1:]
	}
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	r.chunks[0] = r.chunks[0][n:]
	return n, nil
}

func (r *idatReader) ReadByte() (byte, error) {
	for len(r.chunks) > 0 && len(r.chunks[0]) == 0 {
		r.chunks = r.chunks[1:]
	}
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	b := r.chunks[0][0]
	r.chunks[0] = r.chunks[0][1:]
	return b, nil
}

// decodePNG inflates and unfilters the image data and maps the samples to
// Pillow's mode for the PNG type. 8-bit RGB without tRNS goes straight into
// the final buffer.
func decodePNG(in *info) (*raster, error) {
	h := in.png
	mode := pngModes[[2]int{h.depth, h.ctype}]
	w, ht := in.w, in.h
	var r *raster
	switch {
	case h.ctype == 0 && h.depth == 16:
		r = newRaster(mode, layoutL, w, ht)
	case h.ctype == 0:
		r = newRaster(mode, layoutL, w, ht)
	case h.ctype == 2:
		r = newRaster(mode, layoutRGB, w, ht)
	case h.ctype == 3:
		r = newRaster(mode, layoutP, w, ht)
	case h.ctype == 4 && h.depth == 8:
		r = newRaster(mode, layoutLA, w, ht)
	default: // RGBA, and 16-bit LA which Pillow opens as RGBA
		r = newRaster(mode, layoutRGBA, w, ht)
	}
	// Transparency (tRNS before the image data), as PngImagePlugin.chunk_tRNS.
	switch {
	case h.ctype == 3:
		pal := greyRamp()
		for i := 0; i+2 < len(h.plte) && i/3 < 256; i += 3 {
			pal[i/3] = [4]uint8{h.plte[i], h.plte[i+1], h.plte[i+2], 255}
		}
		if h.trns != nil {
			for i := 0; i < len(h.trns) && i < 256; i++ {
				pal[i][3] = h.trns[i]
			}
			// An all-0xff tRNS still sets info["transparency"] (as bytes).
			r.transparent = true
		}
		r.palette = pal
	case h.ctype == 0 && len(h.trns) >= 2:
		k := int(binary.BigEndian.Uint16(h.trns))
		r.transparent, r.key = true, [3]int{k, k, k}
	case h.ctype == 2 && len(h.trns) >= 6:
		r.transparent = true
		for c := 0; c < 3; c++ {
			r.key[c] = int(binary.BigEndian.Uint16(h.trns[2*c:]))
		}
	}

	zr, err := pngInflater(h.idat)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	ch := pngChannels[h.ctype]
	bpp := (ch*h.depth + 7) / 8 // filter unit, in bytes
	if !h.interlaced {
		if err := pngPass(zr, r, h, bpp, 0, 0, 1, 1, w, ht); err != nil {
			return nil, err
		}
		return r, nil
	}
	for _, a := range adam7 {
		pw := (w - a.x0 + a.dx - 1) / a.dx
		ph := (ht - a.y0 + a.dy - 1) / a.dy
		if pw <= 0 || ph <= 0 {
			continue
		}
		if err := pngPass(zr, r, h, bpp, a.x0, a.y0, a.dx, a.dy, pw, ph); err != nil {
			return nil, err
		}
	}
	return r, nil
}

var adam7 = [7]struct{ x0, y0, dx, dy int }{
	{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2},
}

// pngInflater checks the zlib header and returns a raw inflater. The Adler-32
// trailer is not read: Pillow stops once it has every row.
func pngInflater(idat [][]byte) (io.ReadCloser, error) {
	src := &idatReader{chunks: append([][]byte(nil), idat...)}
	var hdr [2]byte
	if _, err := io.ReadFull(src, hdr[:]); err != nil {
		return nil, truncated(FormatPNG)
	}
	if hdr[0]&0x0f != 8 || (uint(hdr[0])<<8|uint(hdr[1]))%31 != 0 || hdr[1]&0x20 != 0 {
		return nil, corrupt(FormatPNG, "bad zlib header")
	}
	return flate.NewReader(src), nil
}

// pngPass reads pw×ph filtered rows and stores the pixels at
// (x0 + i*dx, y0 + j*dy).
func pngPass(zr io.Reader, r *raster, h *pngHeader, bpp, x0, y0, dx, dy, pw, ph int) error {
	rowBytes := (pw*pngChannels[h.ctype]*h.depth + 7) / 8
	cur := make([]byte, rowBytes+1)
	prev := make([]byte, rowBytes+1)
	for j := 0; j < ph; j++ {
		if _, err := io.ReadFull(zr, cur); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return truncated(FormatPNG)
			}
			return corrupt(FormatPNG, "%v", err)
		}
		if err := unfilter(cur, prev, bpp); err != nil {
			return err
		}
		storeRow(r, h, cur[1:], y0+j*dy, x0, dx, pw)
		prev, cur = cur, prev
	}
	return nil
}

// unfilter reverses the PNG filter of one row in place; prev is the previous
// unfiltered row (zeros for the first), both with the filter byte at [0].
func unfilter(cur, prev []byte, bpp int) error {
	c, p := cur[1:], prev[1:]
	switch cur[0] {
	case 0:
	case 1:
		for i := bpp; i < len(c); i++ {
			c[i] += c[i-bpp]
		}
	case 2:
		for i := range c {
			c[i] += p[i]
		}
	case 3:
		for i := 0; i < bpp && i < len(c); i++ {
			c[i] += p[i] / 2
		}
		for i := bpp; i < len(c); i++ {
			c[i] += uint8((int(c[i-bpp]) + int(p[i])) / 2)
		}
	case 4:
		for i := 0; i < bpp && i < len(c); i++ {
			c[i] += p[i]
		}
		for i := bpp; i < len(c); i++ {
			a, b, cc := int(c[i-bpp]), int(p[i]), int(p[i-bpp])
			pa, pb, pc := abs(b-cc), abs(a-cc), abs(a+b-2*cc)
			switch {
			case pa <= pb && pa <= pc:
				c[i] += uint8(a)
			case pb <= pc:
				c[i] += uint8(b)
			default:
				c[i] += uint8(cc)
			}
		}
	default:
		return corrupt(FormatPNG, "unknown filter type %d", cur[0])
	}
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// storeRow converts one unfiltered row of pw samples into the raster's
// layout at row y, columns x0, x0+dx, …
func storeRow(r *raster, h *pngHeader, row []byte, y, x0, dx, pw int) {
	lb := layoutBytes[r.layout]
	out := r.pix[y*r.w*lb : (y+1)*r.w*lb]
	if dx == 1 && h.depth == 8 && lb == pngChannels[h.ctype] {
		copy(out, row[:pw*lb])
		return
	}
	x := x0
	switch {
	case h.depth < 8: // grey or palette, 1/2/4 bits
		per := 8 / h.depth
		mask := byte(1<<h.depth - 1)
		for i := 0; i < pw; i++ {
			v := row[i/per] >> (8 - h.depth*(i%per+1)) & mask
			if h.ctype == 0 {
				switch h.depth { // Pillow's "1", "L;2", "L;4" unpackers
				case 1:
					v *= 255
				case 2:
					v *= 0x55
				case 4:
					v *= 0x11
				}
			}
			out[x] = v
			x += dx
		}
	case h.depth == 8:
		for i := 0; i < pw; i++ {
			copy(out[x*lb:x*lb+lb], row[i*lb:i*lb+lb])
			x += dx
		}
	case h.ctype == 0: // 16-bit grey, mode "I": convert("RGB") clamps to 255
		for i := 0; i < pw; i++ {
			v := row[2*i : 2*i+2]
			if v[0] != 0 {
				out[x] = 255
			} else {
				out[x] = v[1]
			}
			x += dx
		}
	case h.ctype == 4: // 16-bit LA, opened as RGBA (rawmode LA;16B): high bytes
		for i := 0; i < pw; i++ {
			l, a := row[4*i], row[4*i+2]
			o := out[x*4 : x*4+4]
			o[0], o[1], o[2], o[3] = l, l, l, a
			x += dx
		}
	default: // 16-bit RGB, RGBA: high bytes
		for i := 0; i < pw; i++ {
			for c := 0; c < lb; c++ {
				out[x*lb+c] = row[(i*lb+c)*2]
			}
			x += dx
		}
	}
}
