package fetch

import (
	"bytes"
	"strings"
)

// SniffMIME names the format of the leading bytes for the image and video
// containers the gateway meets (JPEG, PNG, GIF, WebP, BMP, TIFF, MP4/MOV
// family, WebM/Matroska, AVI), or returns "" when it does not recognise
// them. It is a cheap helper for MIMEMismatch, not the decoders' sniffer.
func SniffMIME(b []byte) string {
	switch {
	case len(b) >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff:
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "AVI ":
		return "video/x-msvideo"
	case bytes.HasPrefix(b, []byte("BM")) && len(b) >= 14:
		return "image/bmp"
	case bytes.HasPrefix(b, []byte("II*\x00")), bytes.HasPrefix(b, []byte("MM\x00*")):
		return "image/tiff"
	case bytes.HasPrefix(b, []byte("\x1a\x45\xdf\xa3")):
		return "video/webm"
	case len(b) >= 12 && string(b[4:8]) == "ftyp":
		if string(b[8:12]) == "qt  " {
			return "video/quicktime"
		}
		return "video/mp4"
	}
	return ""
}

// canonicalMIME maps declared types that name the same format to one name.
func canonicalMIME(t string) string {
	switch t {
	case "image/jpg", "image/pjpeg":
		return "image/jpeg"
	case "image/x-png":
		return "image/png"
	case "image/x-ms-bmp", "image/x-bmp":
		return "image/bmp"
	case "image/tif", "image/x-tiff":
		return "image/tiff"
	case "video/x-matroska":
		return "video/webm"
	case "video/x-m4v", "application/mp4", "video/quicktime", "video/x-quicktime":
		return "video/mp4"
	case "video/avi", "video/msvideo":
		return "video/x-msvideo"
	}
	return t
}

// MIMEMismatch reports whether a declared media type contradicts the bytes:
// both name a format SniffMIME knows, and they differ. An undeclared,
// generic (application/octet-stream) or unknown declared type, or bytes
// SniffMIME does not recognise, never count as a mismatch. MP4 and QuickTime
// are treated as one family.
func MIMEMismatch(declared string, b []byte) bool {
	d := strings.ToLower(strings.TrimSpace(declared))
	if i := strings.IndexByte(d, ';'); i >= 0 {
		d = strings.TrimSpace(d[:i])
	}
	d = canonicalMIME(d)
	s := canonicalMIME(SniffMIME(b))
	if s == "" || !knownSniffed(d) {
		return false
	}
	return d != s
}

func knownSniffed(t string) bool {
	switch t {
	case "image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp", "image/tiff",
		"video/mp4", "video/webm", "video/x-msvideo":
		return true
	}
	return false
}
