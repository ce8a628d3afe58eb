//go:build cgo && !mmgate_purego

package media

/*
#cgo pkg-config: libturbojpeg
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>
#if defined(__has_include)
#if __has_include(<jconfig.h>)
#include <jconfig.h>
#endif
#endif
// Decompresses and reports, from the same thread (TurboJPEG keeps its
// message in thread-local storage), the result, whether it was only a
// warning, and libjpeg's first message.
static int mmgate_tj_decompress(tjhandle h, const unsigned char* src, unsigned long size,
		unsigned char* dst, int w, int ht, int pf, int* warning, char* msg, int msg_len) {
	int rc = tjDecompress2(h, src, size, dst, w, 0, ht, pf, 0);
	*warning = 0;
	msg[0] = 0;
	if (rc != 0) {
		*warning = tjGetErrorCode(h) == TJERR_WARNING;
		strncpy(msg, tjGetErrorStr2(h), msg_len - 1);
		msg[msg_len - 1] = 0;
	}
	return rc;
}

static int mmgate_turbo_version(void) {
#ifdef LIBJPEG_TURBO_VERSION_NUMBER
	return LIBJPEG_TURBO_VERSION_NUMBER;
#else
	return 0;
#endif
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/mmgate/mmgate/imaging"
)

// decodeJPEG decodes with libjpeg-turbo's defaults (ISLOW IDCT, fancy
// upsampling), as Pillow's decoder configures libjpeg. Colour and grey
// JPEGs decode through libjpeg straight into the final RGB buffer
// (libjpeg's grey → RGB replicates the sample, as Pillow's L → RGB does);
// CMYK and YCCK decode with the TurboJPEG API to CMYK, which Pillow reads
// with rawmode "CMYK;I" (inverted) and converts with cmyk2rgb.
func decodeJPEG(in *info, data []byte, pixels func(n int) ([]uint8, error)) (*Image, error) {
	bpp, mode := 3, "RGB"
	switch in.jpegComps {
	case 1:
		mode = "L"
	case 4:
		bpp, mode = 4, "CMYK"
	}
	if !jpegComplete(in, data) {
		buf := make([]uint8, in.w*in.h*bpp)
		if err := decodeJPEGSuspending(in, data, buf, mode == "CMYK"); err != nil {
			return nil, err
		}
		return jpegImage(in, buf, mode), nil
	}
	if mode != "CMYK" {
		return decodeJPEGRows(in, data, pixels, mode)
	}
	return decodeJPEGCMYK(in, data, pixels)
}

// decodeJPEGCMYK decodes a complete CMYK or YCCK JPEG with TurboJPEG.
func decodeJPEGCMYK(in *info, data []byte, pixels func(n int) ([]uint8, error)) (*Image, error) {
	h := C.tjInitDecompress()
	if h == nil {
		return nil, fmt.Errorf("%s: tjInitDecompress failed", FormatJPEG)
	}
	defer C.tjDestroy(h)
	src := (*C.uchar)(unsafe.Pointer(unsafe.SliceData(data)))
	size := C.ulong(len(data))

	// The header call fails for sampling factors TurboJPEG cannot name (its
	// size fields are set before that check); the decode itself does not
	// need them. The size must match what probing read, or the decode would
	// scale the image.
	var w, ht, subsamp, cs C.int
	C.tjDecompressHeader3(h, src, size, &w, &ht, &subsamp, &cs)
	if int(w) != in.w || int(ht) != in.h {
		return nil, corrupt(FormatJPEG, "TurboJPEG cannot read the header")
	}

	// TurboJPEG writes every pixel of the destination (corrupt data
	// included), so the buffer may be reused scratch memory.
	buf, err := pixels(in.w * in.h * 4)
	if err != nil {
		return nil, err
	}
	dst := (*C.uchar)(unsafe.Pointer(unsafe.SliceData(buf)))
	var warning C.int
	var msg [200]C.char
	if C.mmgate_tj_decompress(h, src, size, dst, w, ht, C.TJPF_CMYK, &warning, &msg[0], C.int(len(msg))) != 0 {
		if warning == 0 {
			return nil, corrupt(FormatJPEG, "%s", C.GoString(&msg[0]))
		}
		// Warnings (corrupt but decodable data) are ignored, as Pillow
		// ignores them.
	}
	return jpegImage(in, buf, "CMYK"), nil
}

// decodeJPEGRows decodes a complete grey or colour JPEG through libjpeg
// directly, as Rows streams it. TurboJPEG would give the same rows, but
// after a warning it reports a later fatal error as a warning too, so a
// file Pillow refuses (corrupt data, then a second frame header) would
// decode.
func decodeJPEGRows(in *info, data []byte, pixels func(n int) ([]uint8, error), mode string) (*Image, error) {
	j, err := openJPEGRows(in, data)
	if err != nil {
		return nil, err
	}
	if j == nil {
		return nil, fmt.Errorf("%s: out of memory for the decoder", FormatJPEG)
	}
	defer j.close()
	// libjpeg writes every row of the destination, so it may be reused
	// scratch memory.
	buf, err := pixels(in.w * in.h * 3)
	if err != nil {
		return nil, err
	}
	if err := j.read(buf, in.w, in.h); err != nil {
		return nil, err
	}
	return jpegImage(in, buf, mode), nil
}

// jpegImage wraps decoded RGB rows, or converts CMYK rows as Pillow does.
func jpegImage(in *info, buf []uint8, mode string) *Image {
	img := &Image{SourceMode: mode, Exact: true}
	if mode != "CMYK" {
		img.RGB = &imaging.RGB{Pix: buf, Width: in.w, Height: in.h}
		return img
	}
	for i := range buf {
		buf[i] = 255 - buf[i] // rawmode "CMYK;I"
	}
	r := &raster{mode: mode, layout: layoutCMYK, w: in.w, h: in.h, pix: buf}
	img.RGB = r.toRGB([3]uint8{})
	return img
}

// jpegDecoderInfo describes the JPEG decoder built in.
func jpegDecoderInfo() DecoderInfo {
	return DecoderInfo{Format: FormatJPEG, Library: "libjpeg-turbo (TurboJPEG)", Version: turboVersion(), Exact: true}
}

// turboVersion is the libjpeg-turbo version of the headers built against
// (TurboJPEG 2.x has no run-time version query), or "" when unknown.
func turboVersion() string {
	n := int(C.mmgate_turbo_version())
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d.%d", n/1000000, n/1000%1000, n%1000)
}
