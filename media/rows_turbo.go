//go:build cgo && !mmgate_purego

package media

/*
#cgo pkg-config: libjpeg
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <jpeglib.h>
#include "jpeg_coefs.h"

// One libjpeg decompressor that lives across calls. Every call that enters
// libjpeg sets the jump buffer first, since the error handler jumps back
// to the call it interrupts.
typedef struct {
	struct jpeg_decompress_struct cinfo;
	struct jpeg_error_mgr pub;
	jmp_buf jb;
	mmgate_coefs coefs;
} mmgate_rows;

static mmgate_coefs* mmgate_coefs_of(j_common_ptr c) { return &((mmgate_rows*)c->client_data)->coefs; }

static void mmgate_rows_error_exit(j_common_ptr c) {
	mmgate_rows* r = (mmgate_rows*)c->client_data;
	longjmp(r->jb, 1);
}
// Warnings (corrupt but decodable data) are ignored, as TurboJPEG's
// decoder and Pillow ignore them.
static void mmgate_rows_output_message(j_common_ptr c) { (void)c; }

// Opens a complete JPEG held in memory (the data must stay where it is
// until close) and starts an RGB decode with libjpeg's defaults (ISLOW
// IDCT, fancy upsampling, block smoothing), TurboJPEG's settings. Returns
// 0, or 2 on a libjpeg error (message in msg), 3 when the frame differs
// from the expected size.
static int mmgate_rows_open(mmgate_rows* r, const unsigned char* src, unsigned long size, int w, int h, char* msg) {
	msg[0] = 0;
	r->cinfo.err = jpeg_std_error(&r->pub);
	r->pub.error_exit = mmgate_rows_error_exit;
	r->pub.output_message = mmgate_rows_output_message;
	r->cinfo.client_data = r;
	if (setjmp(r->jb)) {
		(*r->cinfo.err->format_message)((j_common_ptr)&r->cinfo, msg);
		jpeg_destroy_decompress(&r->cinfo);
		return 2;
	}
	jpeg_create_decompress(&r->cinfo);
	mmgate_coefs_install((j_common_ptr)&r->cinfo, &r->coefs);
	jpeg_mem_src(&r->cinfo, src, size);
	jpeg_read_header(&r->cinfo, TRUE);
	if ((int)r->cinfo.image_width != w || (int)r->cinfo.image_height != h) {
		jpeg_destroy_decompress(&r->cinfo);
		return 3;
	}
	r->cinfo.out_color_space = JCS_RGB;
	jpeg_start_decompress(&r->cinfo);
	if (r->cinfo.output_components != 3 || (int)r->cinfo.output_width != w || (int)r->cinfo.output_height != h) {
		jpeg_destroy_decompress(&r->cinfo);
		return 3;
	}
	return 0;
}

// Reads n rows into dst (w*3 bytes a row). Returns 0, or 2 on a libjpeg
// error, after which the decompressor is destroyed.
static int mmgate_rows_read(mmgate_rows* r, unsigned char* dst, int w, int n, char* msg) {
	JSAMPROW rows[16];
	int done = 0;
	msg[0] = 0;
	if (setjmp(r->jb)) {
		(*r->cinfo.err->format_message)((j_common_ptr)&r->cinfo, msg);
		jpeg_destroy_decompress(&r->cinfo);
		return 2;
	}
	while (done < n) {
		int k = n - done, i, got;
		if (k > 16) k = 16;
		for (i = 0; i < k; i++) rows[i] = dst + (size_t)(done + i) * (size_t)w * 3;
		got = (int)jpeg_read_scanlines(&r->cinfo, rows, (JDIMENSION)k);
		if (got <= 0) {
			// A source in memory never suspends; no progress is an error.
			jpeg_destroy_decompress(&r->cinfo);
			return 2;
		}
		done += got;
	}
	// After the last row, read to the end of the image as TurboJPEG and
	// Pillow do: a marker out of place there is an error too.
	if (r->cinfo.output_scanline >= r->cinfo.output_height) jpeg_finish_decompress(&r->cinfo);
	return 0;
}

static void mmgate_rows_close(mmgate_rows* r) { jpeg_destroy_decompress(&r->cinfo); }

// The coefficient arrays the decompressor holds now (mapped or not).
static int mmgate_rows_coef_arrays(mmgate_rows* r) {
	int n = 0;
	mmgate_coef_array* a;
	for (a = r->coefs.arrays; a != NULL; a = a->next) n++;
	return n;
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// jpegRowsBuilt: this build streams JPEG rows.
const jpegRowsBuilt = true

// jpegRows is a libjpeg decompressor in C memory reading data, which stays
// pinned while libjpeg holds a pointer to it.
type jpegRows struct {
	c    *C.mmgate_rows
	pin  runtime.Pinner
	live bool // c holds a decompressor to destroy
}

// openJPEGRows starts decoding data. An error wraps ErrCorrupt.
func openJPEGRows(in *info, data []byte) (*jpegRows, error) {
	j := &jpegRows{c: (*C.mmgate_rows)(C.calloc(1, C.size_t(unsafe.Sizeof(C.mmgate_rows{}))))}
	if j.c == nil {
		return nil, nil
	}
	j.pin.Pin(unsafe.SliceData(data))
	var msg [C.JMSG_LENGTH_MAX]C.char
	rc := C.mmgate_rows_open(j.c, (*C.uchar)(unsafe.Pointer(unsafe.SliceData(data))), C.ulong(len(data)), C.int(in.w), C.int(in.h), &msg[0])
	if rc != 0 {
		j.free()
		if rc == 3 {
			return nil, corrupt(FormatJPEG, "frame differs from the header")
		}
		return nil, corrupt(FormatJPEG, "%s", C.GoString(&msg[0]))
	}
	j.live = true
	return j, nil
}

func (j *jpegRows) read(dst []uint8, w, n int) error {
	if !j.live {
		return corrupt(FormatJPEG, "decoder already failed")
	}
	var msg [C.JMSG_LENGTH_MAX]C.char
	if C.mmgate_rows_read(j.c, (*C.uchar)(unsafe.Pointer(unsafe.SliceData(dst))), C.int(w), C.int(n), &msg[0]) != 0 {
		j.live = false
		return corrupt(FormatJPEG, "%s", C.GoString(&msg[0]))
	}
	return nil
}

// coefArrays is how many whole-image coefficient arrays the decompressor
// holds in its own mappings (jpeg_coefs.h): one per component from the
// start of a progressive or multi-scan decode to its last row, none
// otherwise.
func (j *jpegRows) coefArrays() int {
	if !j.live {
		return 0
	}
	return int(C.mmgate_rows_coef_arrays(j.c))
}

func (j *jpegRows) close() {
	if j.live {
		C.mmgate_rows_close(j.c)
		j.live = false
	}
	j.free()
}

func (j *jpegRows) free() {
	if j.c != nil {
		C.free(unsafe.Pointer(j.c))
		j.c = nil
	}
	j.pin.Unpin()
}
