package media

// DecoderInfo describes one built-in decoder.
type DecoderInfo struct {
	Format  string `json:"format"`
	Library string `json:"library"`
	Version string `json:"version"` // "" when unknown
	// Exact reports whether the decoder's pixels equal the reference's.
	// For WebP without cgo this holds for lossless files only.
	Exact bool `json:"exact"`
}

// Decoders lists the decoders built into this binary, in a fixed order.
// JPEG and WebP entries say whether they are the Pillow-exact C libraries
// (cgo) or the pure-Go fallbacks.
func Decoders() []DecoderInfo {
	return []DecoderInfo{
		jpegDecoderInfo(),
		{Format: FormatPNG, Library: "Go (compress/flate)", Exact: true},
		webpDecoderInfo(),
		{Format: FormatGIF, Library: "image/gif", Exact: true},
		{Format: FormatBMP, Library: "Go", Exact: true},
		{Format: FormatTIFF, Library: "golang.org/x/image/tiff", Exact: true},
	}
}

// Exact reports whether every built-in decoder is Pillow-exact (a cgo build).
func Exact() bool {
	for _, d := range Decoders() {
		if !d.Exact {
			return false
		}
	}
	return true
}
