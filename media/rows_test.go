package media

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// readAllRows streams every row of r in batches of uneven sizes.
func readAllRows(r *Rows) ([]uint8, error) {
	out := make([]uint8, r.Width*r.Height*3)
	for y, k := 0, 1; y < r.Height; k = k%7 + 2 {
		n := min(k, r.Height-y)
		if err := r.Read(out[y*r.Width*3:], n); err != nil {
			return nil, err
		}
		y += n
	}
	return out, nil
}

// TestRowsGolden streams every corpus file Rows accepts and compares the
// rows with Pillow's pixels; a file Pillow refuses must fail to stream.
// Every JPEG the package decodes exactly and can stream is streamed.
func TestRowsGolden(t *testing.T) {
	m := loadGolden(t)
	d, _ := New(Options{})
	streamed := 0
	for _, c := range m.Cases {
		t.Run(c.File, func(t *testing.T) {
			data := readCorpus(t, c.File)
			r, err := d.Rows(data)
			if r == nil {
				if err != nil && c.Error == "" {
					t.Fatalf("Rows: %v (Pillow decodes it)", err)
				}
				if c.Format == FormatJPEG && c.Error == "" && c.Mode != "CMYK" && c.Orientation <= 1 && formatExact(FormatJPEG) &&
					!bytes.Contains(data, []byte("Exif")) {
					t.Errorf("a plain %s JPEG is not streamed", c.Mode)
				}
				return
			}
			defer r.Close()
			streamed++
			pix, err := readAllRows(r)
			if c.Error != "" {
				if err == nil {
					t.Fatalf("streamed a file Pillow refuses (%s)", c.Error)
				}
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("err = %v, want ErrCorrupt", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if r.Width != c.Width || r.Height != c.Height {
				t.Fatalf("size = %dx%d, want %dx%d", r.Width, r.Height, c.Width, c.Height)
			}
			if got := sum(pix); got != c.SHA256 {
				t.Errorf("sha256 = %s, want %s", got, c.SHA256)
			}
		})
	}
	if formatExact(FormatJPEG) && streamed == 0 {
		t.Error("no corpus file was streamed")
	}
}

// TestRowsEqualDecode checks the streamed rows against Decode on the
// corpus JPEGs, and that closing before the last row and reading past it
// are safe.
func TestRowsEqualDecode(t *testing.T) {
	d, _ := New(Options{})
	for _, name := range []string{"jpeg_420.jpg", "jpeg_progressive.jpg", "jpeg_grey.jpg", "jpeg_restart.jpg", "jpeg_61x37_progressive_422.jpg"} {
		data := readCorpus(t, name)
		r, err := d.Rows(data)
		if r == nil {
			if formatExact(FormatJPEG) {
				t.Fatalf("%s: not streamed (err %v)", name, err)
			}
			continue
		}
		img, err := d.Decode(context.Background(), data)
		if err != nil {
			t.Fatal(err)
		}
		pix, err := readAllRows(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(pix, img.RGB.Pix) {
			t.Errorf("%s: streamed rows differ from Decode", name)
		}
		if err := r.Read(make([]uint8, r.Width*3), 1); err == nil {
			t.Errorf("%s: a read past the last row succeeded", name)
		}
		r.Close()
		r.Close()

		r, _ = d.Rows(data)
		if err := r.Read(make([]uint8, r.Width*3), 1); err != nil {
			t.Fatal(err)
		}
		r.Close() // before the last row
	}
}

// DecodeCost counts a progressive JPEG's pixels three times, another
// format's twice, and works on a prefix of the file.
func TestDecodeCost(t *testing.T) {
	d, _ := New(Options{})
	cases := []struct {
		file string
		mul  int64
	}{
		{"jpeg_420.jpg", 1}, {"jpeg_progressive.jpg", 3}, {"png_rgb.png", 2},
	}
	for _, c := range cases {
		data := readCorpus(t, c.file)
		h, err := d.Probe(data)
		if err != nil {
			t.Fatal(err)
		}
		want := c.mul * int64(h.Width) * int64(h.Height)
		if got := d.DecodeCost(data); got != want {
			t.Errorf("%s: %d, want %d", c.file, got, want)
		}
		if c.file != "png_rgb.png" {
			if got := d.DecodeCost(data[:len(data)/2]); got != want {
				t.Errorf("%s, first half: %d, want %d", c.file, got, want)
			}
		}
	}
	if got := d.DecodeCost([]byte("not an image")); got != 0 {
		t.Errorf("garbage: %d", got)
	}
}
