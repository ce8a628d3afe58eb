package media

import "bytes"

// Format names, as Image.Format and Header.Format report them.
const (
	FormatJPEG = "jpeg"
	FormatPNG  = "png"
	FormatGIF  = "gif"
	FormatBMP  = "bmp"
	FormatTIFF = "tiff"
	FormatWebP = "webp"
)

// Sniff returns the format of data from its leading bytes alone (the magic
// numbers Pillow's plugins accept), or "" when no supported format matches.
func Sniff(data []byte) string {
	switch {
	case len(data) >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff:
		return FormatJPEG
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return FormatPNG
	case bytes.HasPrefix(data, []byte("GIF87a")) || bytes.HasPrefix(data, []byte("GIF89a")):
		return FormatGIF
	case bytes.HasPrefix(data, []byte("BM")):
		return FormatBMP
	case bytes.HasPrefix(data, []byte("II\x2a\x00")) || bytes.HasPrefix(data, []byte("MM\x00\x2a")):
		return FormatTIFF
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return FormatWebP
	}
	return ""
}
