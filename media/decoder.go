package media

import (
	"context"
	"fmt"

	"github.com/mmgate/mmgate/imaging"
)

// DefaultMaxPixels is the pixel cap used when Options.MaxPixels is zero:
// 64 Mpx (64,000,000 pixels).
const DefaultMaxPixels = 64_000_000

// Options configures a Decoder. The zero value means: white background,
// EXIF orientation applied, 64 Mpx cap.
type Options struct {
	// Background is the colour transparent images are composited onto;
	// nil means white (255, 255, 255).
	Background *[3]uint8
	// NoEXIF disables applying the EXIF orientation.
	NoEXIF bool
	// MaxPixels caps width×height as read from the header; 0 means
	// DefaultMaxPixels. Negative values are rejected by New.
	MaxPixels int
}

// Decoder decodes images as the reference loader does (see the package
// documentation). It is safe for concurrent use; its settings are fixed, and
// its only changing state is the scratch memory of DecodeScratch.
type Decoder struct {
	bg        [3]uint8
	noEXIF    bool
	maxPixels int64
	pix       pixelStore
}

// New returns a Decoder for the options.
func New(o Options) (*Decoder, error) {
	if o.MaxPixels < 0 {
		return nil, fmt.Errorf("media: MaxPixels %d is negative", o.MaxPixels)
	}
	d := &Decoder{bg: [3]uint8{255, 255, 255}, noEXIF: o.NoEXIF, maxPixels: int64(o.MaxPixels)}
	if o.Background != nil {
		d.bg = *o.Background
	}
	if d.maxPixels == 0 {
		d.maxPixels = DefaultMaxPixels
	}
	return d, nil
}

// Image is a decoded image.
type Image struct {
	// RGB holds the final pixels: oriented, converted or composited.
	RGB *imaging.RGB
	// Format is the sniffed format (FormatJPEG, …).
	Format string
	// SourceMode is the mode Pillow opens the file in ("RGB", "L", "P",
	// "RGBA", "LA", "1", "I", "CMYK").
	SourceMode string
	// Orientation is the EXIF orientation that was applied (1: none).
	Orientation int
	// Exact reports whether the pixels are the reference's bit for bit;
	// false only for lossy JPEG and WebP decoded without cgo.
	Exact bool
}

// Probe reads the headers of data and reports its format and decoded size
// without decoding pixels. An image over the pixel cap yields its Header
// together with an error wrapping ErrTooLarge.
func (d *Decoder) Probe(data []byte) (Header, error) {
	in, err := d.probe(data)
	if in == nil {
		return Header{}, fmt.Errorf("media: probe: %w", err)
	}
	if err != nil {
		return d.header(in), fmt.Errorf("media: probe: %w", err)
	}
	return d.header(in), nil
}

// probe parses the headers and applies the pixel cap. The info is returned
// with a nil error, or with an ErrTooLarge error when the size is known to
// be over the cap (even if later headers are broken); otherwise nil and the
// error.
func (d *Decoder) probe(data []byte) (*info, error) {
	in, err := probe(data)
	if in != nil && in.w > 0 && in.h > 0 {
		if cerr := d.checkSize(in); cerr != nil {
			return in, cerr
		}
	}
	if err != nil {
		return nil, err
	}
	return in, nil
}

func (d *Decoder) header(in *info) Header {
	o := in.orientation
	if d.noEXIF || o < 1 {
		o = 1
	}
	w, h := orientedSize(in.w, in.h, in.preOrient)
	w, h = orientedSize(w, h, o)
	return Header{Format: in.format, Width: w, Height: h, Orientation: o}
}

func (d *Decoder) checkSize(in *info) error {
	if int64(in.w)*int64(in.h) > d.maxPixels {
		return fmt.Errorf("%s: %dx%d is over the %d-pixel cap: %w", in.format, in.w, in.h, d.maxPixels, ErrTooLarge)
	}
	return nil
}

// Decode decodes data into RGB pixels equal to the reference loader's.
// Images over the pixel cap are refused before any pixel memory is
// allocated.
func (d *Decoder) Decode(ctx context.Context, data []byte) (*Image, error) {
	return d.decodeWith(ctx, data, heapPixels)
}

// heapPixels allocates decoder destinations on the Go heap.
func heapPixels(n int) ([]uint8, error) { return make([]uint8, n), nil }

// decodeWith is Decode with the JPEG destination from pixels.
func (d *Decoder) decodeWith(ctx context.Context, data []byte, pixels func(n int) ([]uint8, error)) (*Image, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in, err := d.probe(data)
	if err != nil {
		return nil, fmt.Errorf("media: decode: %w", err)
	}
	img, err := d.decode(in, data, pixels)
	if err != nil {
		return nil, fmt.Errorf("media: decode: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := in.orientation
	if d.noEXIF {
		o = 1
	}
	img.RGB = orient(orient(img.RGB, in.preOrient), o)
	img.Orientation = o
	img.Format = in.format
	return img, nil
}

// DecodeScratch is Decode into the decoder's scratch memory where the
// format's decoder allows it (libjpeg-turbo). The image is valid until
// release is called, which the caller must do exactly once (also after an
// error is returned, release is nil) and after which neither img nor its
// pixels may be used: the memory goes to the next decode.
func (d *Decoder) DecodeScratch(ctx context.Context, data []byte) (img *Image, release func(), err error) {
	var held [][]uint8
	pixels := func(n int) ([]uint8, error) {
		b, err := d.pix.get(n)
		if err == nil {
			held = append(held, b)
		}
		return b, err
	}
	release = func() {
		for _, b := range held {
			d.pix.put(b)
		}
		held = nil
	}
	img, err = d.decodeWith(ctx, data, pixels)
	if err != nil {
		release()
		return nil, nil, err
	}
	return img, release, nil
}

// decode runs the format's decoder and the mode conversion.
func (d *Decoder) decode(in *info, data []byte, pixels func(n int) ([]uint8, error)) (*Image, error) {
	var r *raster
	var err error
	exact := true
	switch in.format {
	case FormatJPEG:
		return decodeJPEG(in, data, pixels)
	case FormatWebP:
		r, exact, err = decodeWebP(in, data)
	case FormatPNG:
		r, err = decodePNG(in)
	case FormatGIF:
		r, err = decodeGIF(in, data)
	case FormatBMP:
		r, err = decodeBMP(in, data)
	case FormatTIFF:
		r, err = decodeTIFF(in, data)
	default:
		err = ErrUnsupported
	}
	if err != nil {
		return nil, err
	}
	return &Image{RGB: r.toRGB(d.bg), SourceMode: r.mode, Exact: exact}, nil
}
