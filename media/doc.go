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
// TIFF, WebP), never from a name or MIME type. JPEG is decoded with
// libjpeg-turbo (grey and colour through its libjpeg API, CMYK through
// TurboJPEG) and WebP with libwebp (and libwebpdemux for animations)
// through cgo, with the settings Pillow uses (ISLOW IDCT, fancy
// upsampling), so their pixels are the reference's. Rows streams a JPEG's
// rows top to bottom instead, for a caller that never holds the whole
// image; its decompressor keeps a progressive or multi-scan file's
// coefficients in fresh anonymous mappings, which are zero already, rather
// than in malloc'd rows that libjpeg clears page fault by page fault
// (jpeg_coefs.h). PNG, GIF, BMP and TIFF are
// lossless: their samples are mapped to Pillow's modes (PNG 16-bit samples keep
// the high byte, 16-bit grey becomes min(v, 255), palette and tRNS
// transparency as Pillow applies them) and converted with Pillow's formulas.
// Animated GIF and WebP contribute their first frame. Every behaviour is
// checked against files and hashes produced with the reference
// (scripts/golden/media_pillow.py, testdata/golden.json).
//
// Reference behaviours worth knowing:
//   - EXIF orientation is read from JPEG APP1, WebP EXIF, the TIFF IFD, and for
//     PNG from eXIf, a tEXt "exif" entry, an ImageMagick "Raw profile type
//     exif" text chunk, or XMP tiff:Orientation, with Pillow's precedence. The
//     EXIF parser follows Pillow's (first value of any integer type, last
//     duplicate wins, a broken directory keeps the entries read so far); a
//     blob Pillow fails on is ignored. A JPEG whose EXIF header makes Pillow's
//     parser raise while it looks for the resolution is refused, as Pillow
//     refuses it.
//   - Pillow's TIFF plugin already transposes by the orientation tag when it
//     loads, and exif_transpose then applies the tag again; Decode does both.
//   - A truncated file fails when Pillow's does (checked at several cut
//     points per corpus file): a JPEG without its EOI is decoded through
//     libjpeg with a suspending source as Pillow does (the pure-Go build
//     refuses it), a PNG, GIF or BMP succeeds when the pixel data is complete.
//
// Without cgo (CGO_ENABLED=0, or the mmgate_purego build tag) JPEG and WebP
// fall back to Go's image/jpeg and golang.org/x/image/webp: lossy pixels
// then differ from the reference, and every Image says so in Exact;
// Decoders lists what is built in. The cgo build needs the pkg-config
// packages libturbojpeg, libjpeg, libwebp and libwebpdemux.
//
// Probe reads only headers: format, size (after EXIF orientation) and
// orientation, cheaply, so that callers can refuse an image over the pixel
// cap before anything is decoded; Decode refuses such images the same way
// before allocating pixel memory. Malformed input yields ErrCorrupt (or
// ErrTruncated, a kind of ErrCorrupt), unknown formats ErrUnsupported, images
// over the cap ErrTooLarge; no input makes either function panic.
//
// Known limits, refused with ErrUnsupported rather than decoded differently
// from the reference: BMP with 16-bit pixels or RLE compression; TIFF other
// than 8-bit RGB, RGBA (unassociated alpha), grey, palette or bilevel, in one
// plane; GIF without any colour table, with a first frame outside the
// logical screen, or with pixel indices past the palette; animated WebP and
// arithmetic-coded JPEG in the pure-Go build.
//
// A Decoder is safe for concurrent use. DecodeScratch decodes into memory
// the decoder keeps for the next image, outside the Go heap.
package media
