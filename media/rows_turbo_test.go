//go:build cgo && !mmgate_purego

package media

import "testing"

// TestRowsCoefficientArrays checks that a progressive decode keeps its
// coefficients in the decompressor's own arrays (jpeg_coefs.h), one per
// component, that they are released with the last row, and that a
// baseline decode has none.
func TestRowsCoefficientArrays(t *testing.T) {
	d, _ := New(Options{})
	for _, c := range []struct {
		file string
		want int
	}{{"jpeg_progressive.jpg", 3}, {"jpeg_progressive_444.jpg", 3}, {"jpeg_61x37_progressive_422.jpg", 3}, {"jpeg_420.jpg", 0}} {
		r, err := d.Rows(readCorpus(t, c.file))
		if r == nil {
			t.Fatalf("%s: not streamed (%v)", c.file, err)
		}
		if got := r.dec.coefArrays(); got != c.want {
			t.Errorf("%s: %d coefficient arrays after the start, want %d", c.file, got, c.want)
		}
		if err := r.Read(make([]uint8, r.Width*3*(r.Height-1)), r.Height-1); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if got := r.dec.coefArrays(); got != c.want {
			t.Errorf("%s: %d coefficient arrays before the last row, want %d", c.file, got, c.want)
		}
		if err := r.Read(make([]uint8, r.Width*3), 1); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if got := r.dec.coefArrays(); got != 0 {
			t.Errorf("%s: %d coefficient arrays after the last row, want 0", c.file, got)
		}
		r.Close()
	}
}
