// Package media turns the bytes of an image into the RGB pixels a Python
// reference loader produces, bit for bit:
//
//	img = PIL.Image.open(bytes)              # Pillow 9.4, libjpeg-turbo 2.1.5, libwebp 1.2.4
//	img = ImageOps.exif_transpose(img)       # any exception ignored
//	if img has transparency (mode RGBA/LA/PA or info["transparency"]):
//	    img = img.convert("RGBA"), pasted with its alpha onto a background (white by default)
//	else:
//	    img = img.convert("RGB")
//
// The format is sniffed from the leading bytes only (JPEG, PNG, GIF, BMP,
// TIFF, WebP). JPEG is decoded with libjpeg-turbo's TurboJPEG API and WebP
// with libwebp through cgo, with the settings Pillow uses (ISLOW IDCT, fancy
// upsampling), so their pixels are the reference's. PNG, GIF, BMP and TIFF are
// lossless: their samples are mapped to Pillow's modes (PNG 16-bit samples keep
// the high byte, 16-bit grey becomes min(v, 255), palette and tRNS
// transparency as Pillow applies them) and converted with Pillow's formulas.
// Animated GIF and WebP contribute their first frame.
//
// Without cgo (CGO_ENABLED=0, or the mmgate_purego build tag) JPEG and lossy
// WebP fall back to Go's image/jpeg and golang.org/x/image/webp, whose pixels
// differ from the reference; every Image says so in Exact, and Decoders lists
// what is built in.
//
// Probe reads only headers: format, size (after EXIF orientation) and
// orientation, cheaply, so that callers can refuse an image over the pixel
// cap before anything is decoded; Decode refuses such images the same way
// before allocating pixel memory. Malformed input yields ErrCorrupt (or
// ErrTruncated), unknown formats ErrUnsupported, and no input makes either
// function panic.
//
// Known limits (decoded input outside them is refused with ErrUnsupported
// rather than decoded differently from the reference): BMP with 16-bit pixels or
// RLE compression, TIFF other than 8-bit RGB / RGBA (unassociated alpha) / grey /
// palette / bilevel, BigTIFF EXIF. Orientation is read from JPEG APP1, PNG eXIf,
// WebP EXIF and the TIFF IFD, as Pillow 9.4 does; PNG XMP and "Raw profile type
// exif" text chunks are not read.
//
// A Decoder is immutable after New and safe for concurrent use.
package media
