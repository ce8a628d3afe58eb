//go:build cgo && !mmgate_purego

package media

/*
#cgo pkg-config: libjpeg
#include <stdio.h>
#include <setjmp.h>
#include <string.h>
#include <jpeglib.h>

typedef struct {
	struct jpeg_error_mgr pub;
	jmp_buf jb;
} mmgate_jerr;

static void mmgate_error_exit(j_common_ptr c) { longjmp(((mmgate_jerr*)c->err)->jb, 1); }
static void mmgate_output_message(j_common_ptr c) { (void)c; }
static void mmgate_init_source(j_decompress_ptr c) { (void)c; }
static void mmgate_term_source(j_decompress_ptr c) { (void)c; }

// A suspending source holding all the data there is: asking for more
// suspends the decoder, as Pillow's source does when the file has ended.
static boolean mmgate_fill_input(j_decompress_ptr c) { (void)c; return FALSE; }

static void mmgate_skip_input(j_decompress_ptr c, long n) {
	struct jpeg_source_mgr* s = c->src;
	if (n <= 0) return;
	if ((size_t)n > s->bytes_in_buffer) n = (long)s->bytes_in_buffer;
	s->next_input_byte += n;
	s->bytes_in_buffer -= (size_t)n;
}

// Decodes every row into dst (w*bpp bytes per row) with libjpeg's defaults
// (ISLOW IDCT, fancy upsampling). Returns 0 when every row came out, 1 when
// the decoder suspended for want of data before that (Pillow: "image file is
// truncated"), 2 on a libjpeg error (message in msg, JMSG_LENGTH_MAX bytes),
// 3 when the frame differs from the expected size or components.
static int mmgate_jpeg_suspending(const unsigned char* src, unsigned long size, unsigned char* dst,
		int w, int h, int cmyk, char* msg) {
	struct jpeg_decompress_struct cinfo;
	mmgate_jerr jerr;
	struct jpeg_source_mgr sm;
	volatile int rc = 2;
	int bpp = cmyk ? 4 : 3;
	JSAMPROW row;
	msg[0] = 0;
	cinfo.err = jpeg_std_error(&jerr.pub);
	jerr.pub.error_exit = mmgate_error_exit;
	jerr.pub.output_message = mmgate_output_message;
	if (setjmp(jerr.jb)) {
		(*cinfo.err->format_message)((j_common_ptr)&cinfo, msg);
		jpeg_destroy_decompress(&cinfo);
		return 2;
	}
	jpeg_create_decompress(&cinfo);
	sm.init_source = mmgate_init_source;
	sm.fill_input_buffer = mmgate_fill_input;
	sm.skip_input_data = mmgate_skip_input;
	sm.resync_to_restart = jpeg_resync_to_restart;
	sm.term_source = mmgate_term_source;
	sm.next_input_byte = src;
	sm.bytes_in_buffer = size;
	cinfo.src = &sm;
	if (jpeg_read_header(&cinfo, TRUE) == JPEG_SUSPENDED) { rc = 1; goto done; }
	if ((int)cinfo.image_width != w || (int)cinfo.image_height != h) { rc = 3; goto done; }
	cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
	if (!jpeg_start_decompress(&cinfo)) { rc = 1; goto done; }
	if (cinfo.output_components != bpp || (int)cinfo.output_width != w) { rc = 3; goto done; }
	while (cinfo.output_scanline < cinfo.output_height) {
		row = dst + (size_t)cinfo.output_scanline * (size_t)w * (size_t)bpp;
		if (jpeg_read_scanlines(&cinfo, &row, 1) != 1) { rc = 1; goto done; }
	}
	rc = 0;
done:
	jpeg_destroy_decompress(&cinfo);
	return rc;
}
*/
import "C"

import "unsafe"

// decodeJPEGSuspending decodes a JPEG that lacks its EOI marker the way
// Pillow does: with libjpeg reading from a source that suspends at the end
// of the data. Pillow accepts the image when every row came out before
// that (a single-scan image whose last entropy-coded bytes libjpeg did not
// need to look past), and reports it truncated otherwise; the rows are the
// same as TurboJPEG's, from the same library with the same settings.
func decodeJPEGSuspending(in *info, data, buf []byte, cmyk bool) error {
	var msg [C.JMSG_LENGTH_MAX]C.char
	c := C.int(0)
	if cmyk {
		c = 1
	}
	rc := C.mmgate_jpeg_suspending((*C.uchar)(unsafe.Pointer(unsafe.SliceData(data))), C.ulong(len(data)),
		(*C.uchar)(unsafe.Pointer(unsafe.SliceData(buf))), C.int(in.w), C.int(in.h), c, &msg[0])
	switch rc {
	case 0:
		return nil
	case 1:
		return truncated(FormatJPEG)
	case 3:
		return corrupt(FormatJPEG, "frame differs from the header")
	}
	return corrupt(FormatJPEG, "%s", C.GoString(&msg[0]))
}
