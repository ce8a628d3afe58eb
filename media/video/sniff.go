package video

import "bytes"

// Container names Sniff returns; each is also the FFmpeg demuxer forced with -f.
const (
	ContainerMP4      = "mov"      // ISO BMFF: MP4, MOV, M4V, 3GP
	ContainerMatroska = "matroska" // Matroska and WebM
	ContainerAVI      = "avi"
	ContainerGIF      = "gif" // only decoded as video when asked (Options.AllowGIF)
)

// Sniff returns the container of data from its leading bytes, or "" when
// none is recognised. GIF is reported so that callers can choose to decode
// an animated GIF as a video; it is otherwise an image format.
func Sniff(data []byte) string {
	switch {
	case len(data) >= 12 && isBMFFBox(data[4:8]):
		return ContainerMP4
	case bytes.HasPrefix(data, []byte{0x1a, 0x45, 0xdf, 0xa3}):
		return ContainerMatroska
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "AVI ":
		return ContainerAVI
	case bytes.HasPrefix(data, []byte("GIF87a")) || bytes.HasPrefix(data, []byte("GIF89a")):
		return ContainerGIF
	}
	return ""
}

// IsVideo reports whether data starts like a video container this package
// decodes (GIF excluded).
func IsVideo(data []byte) bool {
	c := Sniff(data)
	return c != "" && c != ContainerGIF
}

// isBMFFBox reports whether t is the type of a box that may open an ISO BMFF
// (or QuickTime) file.
func isBMFFBox(t []byte) bool {
	switch string(t) {
	case "ftyp", "moov", "mdat", "wide", "free", "skip", "pnot":
		return true
	}
	return false
}
