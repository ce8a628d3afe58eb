//go:build !cgo || mmgate_purego

package media

// jpegRowsBuilt: this build does not stream JPEG rows.
const jpegRowsBuilt = false

// jpegRows is absent without cgo: image/jpeg decodes whole images only.
type jpegRows struct{}

// openJPEGRows declines, so that Decoder.Rows yields nil and the caller
// decodes the whole image.
func openJPEGRows(*info, []byte) (*jpegRows, error) { return nil, nil }

func (*jpegRows) read([]uint8, int, int) error { return ErrUnsupported }

func (*jpegRows) close() {}
