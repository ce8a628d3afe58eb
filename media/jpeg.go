package media

import "bytes"

// jpegComplete reports whether the entropy-coded data after the first scan
// header reaches an EOI marker. Inside entropy-coded data 0xFF is always
// followed by 0x00 or RSTn, so the first 0xFF 0xD9 found is the EOI.
//
// Data without it (the usual truncated download) needs Pillow's rule:
// Pillow's decoder reads from a suspending source and succeeds once every
// row is out, so it fails with "image file is truncated" unless libjpeg
// produced all rows without looking past the end, which for a single-scan
// image cut just before its EOI depends on the bit alignment of the final
// MCU. TurboJPEG's source pads missing data instead, so the cgo build
// decodes such data through libjpeg with a suspending source; the pure-Go
// build refuses it.
func jpegComplete(in *info, data []byte) bool {
	return bytes.Contains(data[in.jpegScan:], []byte{0xff, 0xd9})
}
