package imaging

import "fmt"

// RGB is an 8-bit image with three interleaved channels (R, G, B) and packed
// rows: the sample for channel c of pixel (x, y) is Pix[(y*Width+x)*3+c].
//
// It is the hand-off format between stages: decoders produce it (after any
// Pillow-equivalent mode conversion), the resampler reads and writes it, and
// processors normalize it.
type RGB struct {
	Pix    []uint8
	Width  int
	Height int
}

// NewRGB allocates a zeroed width×height image.
func NewRGB(width, height int) *RGB {
	if width < 0 || height < 0 {
		panic(fmt.Sprintf("imaging: negative size %dx%d", width, height))
	}
	return &RGB{Pix: make([]uint8, width*height*3), Width: width, Height: height}
}

// Stride is the number of bytes in one row.
func (m *RGB) Stride() int { return m.Width * 3 }

// Row returns the samples of row y.
func (m *RGB) Row(y int) []uint8 {
	s := m.Width * 3
	return m.Pix[y*s : (y+1)*s : (y+1)*s]
}

// Validate reports whether Pix has exactly Width*Height*3 samples.
func (m *RGB) Validate() error {
	if m.Width < 0 || m.Height < 0 {
		return fmt.Errorf("imaging: negative size %dx%d", m.Width, m.Height)
	}
	if len(m.Pix) != m.Width*m.Height*3 {
		return fmt.Errorf("imaging: %dx%d RGB image has %d samples, want %d", m.Width, m.Height, len(m.Pix), m.Width*m.Height*3)
	}
	return nil
}
