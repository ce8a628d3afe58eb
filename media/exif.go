package media

import (
	"encoding/binary"
	"math"
)

const tagOrientation = 0x0112

// exifOrientation returns the EXIF orientation Pillow 9.4's
// ImageOps.exif_transpose acts on (2–8) for an "exif" info blob, or 1 when it
// would leave the image alone: no orientation tag, an unusable value, or a
// blob Pillow fails to parse (the reference loader ignores those errors).
// The blob may start with "Exif\0\0" (JPEG APP1, WebP, PNG as Pillow stores
// it); the rest is a TIFF header and IFD0.
func exifOrientation(blob []byte) int {
	o, _, _ := parseExif(blob)
	return o
}

// parseExif is exifOrientation that also reports whether the blob has an
// orientation tag at all (whatever its value) and whether Pillow parses the
// blob without raising; Pillow consults XMP only in the second case without
// the tag.
func parseExif(blob []byte) (o int, hasTag, ok bool) {
	if len(blob) >= 6 && string(blob[:6]) == "Exif\x00\x00" {
		blob = blob[6:]
	}
	if len(blob) == 0 {
		return 1, false, true
	}
	return parseTIFF(blob)
}

// tiffUnit is the size of one value of each TIFF field type Pillow 9.4
// loads; other types are skipped.
var tiffUnit = map[uint16]uint64{
	1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8,
}

// tiffOrientation parses a TIFF header and its first IFD the way Pillow's
// ImageFileDirectory_v2.load does, and evaluates the orientation tag as
// Exif.get + exif_transpose would.
//
// Pillow's rules, reproduced: the header must start with one of six byte
// prefixes (BigTIFF ones then fail); entries are read in order and the last
// one for a tag wins; an entry of an unknown type or with no data is
// skipped; running out of data while reading an entry, or an out-of-range
// data offset, ends the directory, keeping the entries read so far. The
// value used is the first of the tag's values, of an integer type (BYTE and
// UNDEFINED values are bytes, which never match); rationals and floats count
// when they equal an integer.
func tiffOrientation(d []byte) int {
	o, _, _ := parseTIFF(d)
	return o
}

func parseTIFF(d []byte) (o int, hasTag, ok bool) {
	if len(d) < 8 {
		return 1, false, false
	}
	var bo binary.ByteOrder
	switch string(d[:4]) {
	case "MM\x00\x2a", "MM\x2a\x00", "MM\x00\x2b":
		bo = binary.BigEndian
	case "II\x2a\x00", "II\x00\x2a":
		bo = binary.LittleEndian
	default: // not TIFF, or "II+\0" BigTIFF (whose 8-byte header Pillow cannot unpack)
		return 1, false, false
	}
	off := uint64(bo.Uint32(d[4:8]))
	if off > uint64(len(d)) || uint64(len(d))-off < 2 {
		return 1, false, true
	}
	n := int(bo.Uint16(d[off:]))
	pos := off + 2
	var typ uint16
	var val []byte
	found := false
	for i := 0; i < n; i++ {
		if uint64(len(d))-pos < 12 {
			break
		}
		e := d[pos : pos+12]
		pos += 12
		tag, t, count := bo.Uint16(e[0:2]), bo.Uint16(e[2:4]), uint64(bo.Uint32(e[4:8]))
		unit, ok := tiffUnit[t]
		if !ok {
			continue
		}
		size := count * unit
		var data []byte
		if size > 4 {
			o := uint64(bo.Uint32(e[8:12]))
			if o > uint64(len(d)) || uint64(len(d))-o < size {
				break // Pillow's _safe_read fails: the directory ends here
			}
			data = d[o : o+size]
		} else {
			data = e[8 : 8+size]
		}
		if size == 0 {
			continue
		}
		if tag == tagOrientation {
			typ, val, found = t, data, true
		}
	}
	if !found {
		return 1, false, true
	}
	v, valid := firstValue(typ, val, bo)
	if !valid || v < 2 || v > 8 {
		return 1, true, true
	}
	return int(v), true, true
}

// firstValue returns the integer Pillow would compare for the first value of
// a tag, and whether there is one.
func firstValue(typ uint16, b []byte, bo binary.ByteOrder) (int64, bool) {
	switch typ {
	case 6:
		return int64(int8(b[0])), true
	case 3:
		return int64(bo.Uint16(b)), true
	case 8:
		return int64(int16(bo.Uint16(b))), true
	case 4, 13:
		return int64(bo.Uint32(b)), true
	case 9:
		return int64(int32(bo.Uint32(b))), true
	case 16:
		v := bo.Uint64(b)
		if v <= 8 {
			return int64(v), true
		}
	case 5, 10:
		num, den := int64(bo.Uint32(b)), int64(bo.Uint32(b[4:]))
		if typ == 10 {
			num, den = int64(int32(bo.Uint32(b))), int64(int32(bo.Uint32(b[4:])))
		}
		if den != 0 && num%den == 0 {
			return num / den, true
		}
	case 11:
		return floatInt(float64(math.Float32frombits(bo.Uint32(b))))
	case 12:
		return floatInt(math.Float64frombits(bo.Uint64(b)))
	}
	return 0, false
}

func floatInt(f float64) (int64, bool) {
	if f >= 0 && f <= 8 && f == math.Trunc(f) {
		return int64(f), true
	}
	return 0, false
}

// exifRaises reports whether Pillow 9.4's Exif.load fails on blob with an
// exception other than SyntaxError: a header Pillow recognises as TIFF but
// cannot unpack (shorter than 8 bytes, or little-endian BigTIFF). While
// opening a JPEG without JFIF dpi, Pillow reads the EXIF for the resolution
// and lets that exception escape, refusing the file.
func exifRaises(blob []byte) bool {
	if len(blob) >= 6 && string(blob[:6]) == "Exif\x00\x00" {
		blob = blob[6:]
	}
	if len(blob) < 4 {
		return false
	}
	switch string(blob[:4]) {
	case "MM\x00\x2a", "MM\x2a\x00", "MM\x00\x2b", "II\x2a\x00", "II\x00\x2a":
		return len(blob) < 8
	case "II\x2b\x00":
		return true
	}
	return false
}
