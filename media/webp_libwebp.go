//go:build cgo && !mmgate_purego

package media

/*
#cgo pkg-config: libwebp libwebpdemux
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

// Decodes a still image into dst (stride bytes per row) with libwebp's
// default options (fancy upsampling, no dithering), as Pillow's decoder
// does. Returns a VP8StatusCode.
static int mmgate_webp_decode(const uint8_t* data, size_t size, int rgba, uint8_t* dst, size_t dst_size, int stride) {
	WebPDecoderConfig config;
	if (!WebPInitDecoderConfig(&config)) return VP8_STATUS_INVALID_PARAM;
	config.output.colorspace = rgba ? MODE_RGBA : MODE_RGB;
	config.output.is_external_memory = 1;
	config.output.u.RGBA.rgba = dst;
	config.output.u.RGBA.stride = stride;
	config.output.u.RGBA.size = dst_size;
	int status = WebPDecode(data, size, &config);
	WebPFreeDecBuffer(&config.output);
	return status;
}

// Renders the first frame of an animation onto its w×h RGBA canvas, as
// Pillow's WebPAnimDecoder use does. Returns 0 on success, 1 on a decoding
// error, 2 when the canvas size differs from the expected one.
static int mmgate_webp_first_frame(const uint8_t* data, size_t size, uint8_t* dst, int w, int h) {
	WebPData wd;
	wd.bytes = data;
	wd.size = size;
	WebPAnimDecoderOptions opt;
	if (!WebPAnimDecoderOptionsInit(&opt)) return 1;
	opt.color_mode = MODE_RGBA;
	opt.use_threads = 0;
	WebPAnimDecoder* dec = WebPAnimDecoderNew(&wd, &opt);
	if (dec == NULL) return 1;
	WebPAnimInfo info;
	int rc = 1;
	uint8_t* buf;
	int ts;
	if (!WebPAnimDecoderGetInfo(dec, &info)) goto done;
	if ((int)info.canvas_width != w || (int)info.canvas_height != h) { rc = 2; goto done; }
	if (!WebPAnimDecoderGetNext(dec, &buf, &ts)) goto done;
	memcpy(dst, buf, (size_t)w * (size_t)h * 4);
	rc = 0;
done:
	WebPAnimDecoderDelete(dec);
	return rc;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// decodeWebP decodes with libwebp. A still image goes straight into its
// raster buffer (RGB, or RGBA when the file declares alpha, which is when
// Pillow opens it as RGBA); an animation contributes its first frame on the
// RGBA canvas.
func decodeWebP(in *info, data []byte) (*raster, bool, error) {
	src := (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(data)))
	size := C.size_t(len(data))
	var feat C.WebPBitstreamFeatures
	switch st := C.WebPGetFeatures(src, size, &feat); st {
	case C.VP8_STATUS_OK:
	case C.VP8_STATUS_NOT_ENOUGH_DATA:
		return nil, true, truncated(FormatWebP)
	default:
		return nil, true, webpStatus(int(st))
	}
	alpha := feat.has_alpha != 0
	if feat.has_animation != 0 {
		canvas := make([]uint8, in.w*in.h*4)
		switch C.mmgate_webp_first_frame(src, size, (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(canvas))), C.int(in.w), C.int(in.h)) {
		case 0:
		case 2:
			return nil, true, corrupt(FormatWebP, "canvas size differs from the header")
		default:
			return nil, true, corrupt(FormatWebP, "cannot decode the first frame")
		}
		if alpha {
			return &raster{mode: "RGBA", layout: layoutRGBA, w: in.w, h: in.h, pix: canvas}, true, nil
		}
		rgb := canvas[:in.w*in.h*3]
		for i := 0; i < in.w*in.h; i++ { // RGBX → RGB, in place (forward is safe)
			rgb[i*3], rgb[i*3+1], rgb[i*3+2] = canvas[i*4], canvas[i*4+1], canvas[i*4+2]
		}
		return &raster{mode: "RGB", layout: layoutRGB, w: in.w, h: in.h, pix: rgb}, true, nil
	}
	if int(feat.width) != in.w || int(feat.height) != in.h {
		return nil, true, corrupt(FormatWebP, "image size differs from the header")
	}
	r := newRaster("RGB", layoutRGB, in.w, in.h)
	rgba := C.int(0)
	if alpha {
		r = newRaster("RGBA", layoutRGBA, in.w, in.h)
		rgba = 1
	}
	stride := in.w * layoutBytes[r.layout]
	st := C.mmgate_webp_decode(src, size, rgba, (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(r.pix))), C.size_t(len(r.pix)), C.int(stride))
	if st != C.VP8_STATUS_OK {
		return nil, true, webpStatus(int(st))
	}
	return r, true, nil
}

func webpStatus(st int) error {
	switch st {
	case C.VP8_STATUS_NOT_ENOUGH_DATA:
		return truncated(FormatWebP)
	case C.VP8_STATUS_UNSUPPORTED_FEATURE:
		return fmt.Errorf("%s: unsupported feature: %w", FormatWebP, ErrUnsupported)
	}
	return corrupt(FormatWebP, "libwebp status %d", st)
}

func webpDecoderInfo() DecoderInfo {
	v := int(C.WebPGetDecoderVersion())
	return DecoderInfo{Format: FormatWebP, Library: "libwebp", Version: fmt.Sprintf("%d.%d.%d", v>>16, v>>8&0xff, v&0xff), Exact: true}
}
