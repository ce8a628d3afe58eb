package media

// Rows streams a decoded image's RGB rows top to bottom, so that a caller
// that consumes them in order (a resize, a patchify) never holds the whole
// image: only libjpeg's own buffers and the rows in flight are in memory.
// Rows come from the same library and settings as Decode's, so they equal
// Decode's pixels byte for byte. A Rows belongs to one goroutine and must
// be closed.
type Rows struct {
	Width, Height int
	// Format is the sniffed format; Exact is Image.Exact of the same file.
	Format string
	Exact  bool

	dec  *jpegRows
	next int // rows handed out so far
}

// Rows opens data for streaming when Decode would turn it into RGB rows
// with no step that needs the whole image: a complete baseline or
// progressive JPEG of one or three components (grey or colour; not CMYK),
// with no EXIF orientation to apply, decoded with cgo. Any other file — and
// any file whose headers fail to parse — yields nil and no error, and the
// caller decodes it with Decode, which gives the reference's result or
// error.
func (d *Decoder) Rows(data []byte) (*Rows, error) {
	in := d.streams(data)
	if in == nil {
		return nil, nil
	}
	dec, err := openJPEGRows(in, data)
	if dec == nil || err != nil {
		return nil, err
	}
	return &Rows{Width: in.w, Height: in.h, Format: FormatJPEG, Exact: true, dec: dec}, nil
}

// CanStream reports whether Rows would stream data, and the image's size,
// from the headers alone.
func (d *Decoder) CanStream(data []byte) (width, height int, ok bool) {
	in := d.streams(data)
	if in == nil || !jpegRowsBuilt {
		return 0, 0, false
	}
	return in.w, in.h, true
}

// DecodeCost estimates, from the headers alone (a prefix of the file will
// do), the CPU time decoding data takes, in units of one baseline JPEG
// pixel: a progressive JPEG's pixel counts three (its decoder passes over
// every coefficient once per scan; a 2560×1600 4:2:2 progressive photo
// decodes in about 2.7 times a 4:2:0 baseline one's time), any other
// format's two. 0 when the headers cannot be read. It is meant for
// ordering work, not for limits.
func (d *Decoder) DecodeCost(head []byte) int64 {
	in, err := probe(head)
	if err != nil || in == nil {
		return 0
	}
	px := int64(in.w) * int64(in.h)
	switch {
	case in.format != FormatJPEG:
		return 2 * px
	case in.jpegProgressive:
		return 3 * px
	}
	return px
}

// streams returns the probed headers of a file Rows streams, or nil.
func (d *Decoder) streams(data []byte) *info {
	in, err := d.probe(data)
	if err != nil || in.format != FormatJPEG || (in.jpegComps != 1 && in.jpegComps != 3) {
		return nil
	}
	if in.preOrient > 1 || (!d.noEXIF && in.orientation > 1) || !jpegComplete(in, data) {
		return nil
	}
	return in
}

// Read fills dst with the next n rows (n·Width·3 bytes). A file that turns
// out corrupt past its headers makes Read fail with an error wrapping
// ErrCorrupt; Decode of the same file reports the reference's wording.
func (r *Rows) Read(dst []uint8, n int) error {
	if n < 0 || r.next+n > r.Height || len(dst) < n*r.Width*3 {
		return corrupt(r.Format, "read of %d rows past row %d of %d", n, r.next, r.Height)
	}
	if err := r.dec.read(dst[:n*r.Width*3], r.Width, n); err != nil {
		return err
	}
	r.next += n
	return nil
}

// Close releases the decoder; rows not read are not decoded.
func (r *Rows) Close() {
	if r.dec != nil {
		r.dec.close()
		r.dec = nil
	}
}
