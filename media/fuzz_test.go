package media

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pngHeaderOnly is a PNG signature and IHDR announcing w×h RGB, and no data.
func pngHeaderOnly(w, h uint32) []byte {
	b := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")
	b = binary.BigEndian.AppendUint32(b, w)
	b = binary.BigEndian.AppendUint32(b, h)
	b = append(b, 8, 2, 0, 0, 0)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[12:]))
}

// addCorpus seeds f with the small corpus files whose name starts with
// prefix (the committed seeds live in testdata/fuzz/<name>/).
func addCorpus(f *testing.F, prefix string) {
	ents, err := os.ReadDir(filepath.Join("testdata", "corpus"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		b, err := os.ReadFile(filepath.Join("testdata", "corpus", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		if len(b) <= 64<<10 {
			f.Add(b)
		}
	}
}

// fuzzDecode decodes data under a small pixel cap and checks the result's
// invariants: a typed error, or a valid image whose size Probe predicted.
func fuzzDecode(t *testing.T, data []byte) {
	d, _ := New(Options{MaxPixels: 1 << 20})
	h, perr := d.Probe(data)
	img, err := d.Decode(context.Background(), data)
	if err != nil {
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("untyped error: %v", err)
		}
		return
	}
	if perr != nil {
		t.Fatalf("Decode succeeded where Probe failed: %v", perr)
	}
	if err := img.RGB.Validate(); err != nil {
		t.Fatal(err)
	}
	if img.RGB.Width != h.Width || img.RGB.Height != h.Height || img.Orientation != h.Orientation || img.Format != h.Format {
		t.Fatalf("Decode %s %dx%d o%d, Probe %+v", img.Format, img.RGB.Width, img.RGB.Height, img.Orientation, h)
	}
}

func FuzzDecode(f *testing.F) { addCorpus(f, ""); f.Fuzz(fuzzDecode) }
func FuzzJPEG(f *testing.F)   { addCorpus(f, "jpeg_"); addCorpus(f, "exif_"); f.Fuzz(fuzzDecode) }
func FuzzPNG(f *testing.F)    { addCorpus(f, "png_"); f.Fuzz(fuzzDecode) }
func FuzzWebP(f *testing.F)   { addCorpus(f, "webp_"); f.Fuzz(fuzzDecode) }
func FuzzGIF(f *testing.F)    { addCorpus(f, "gif_"); f.Fuzz(fuzzDecode) }
func FuzzBMP(f *testing.F)    { addCorpus(f, "bmp_"); f.Fuzz(fuzzDecode) }
func FuzzTIFF(f *testing.F)   { addCorpus(f, "tiff_"); f.Fuzz(fuzzDecode) }

// FuzzEXIF checks the EXIF/TIFF-IFD parser never panics and only ever
// reports an orientation in 1–8.
func FuzzEXIF(f *testing.F) {
	f.Add([]byte("Exif\x00\x00II*\x00\x08\x00\x00\x00\x01\x00\x12\x01\x03\x00\x01\x00\x00\x00\x06\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("MM\x00*\x00\x00\x00\x08\x00\x01\x01\x12\x00\x05\x00\x00\x00\x01\x00\x00\x00\x1a\x00\x00\x00\x00\x00\x00\x00\x0c\x00\x00\x00\x02"))
	f.Add([]byte("II+\x00\x08\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if o := exifOrientation(b); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
		_ = exifRaises(b)
	})
}

// FuzzRows streams any data Rows accepts and checks it against Decode:
// the same rows, or both refuse it.
func FuzzRows(f *testing.F) {
	addCorpus(f, "jpeg_")
	f.Fuzz(func(t *testing.T, data []byte) {
		d, _ := New(Options{MaxPixels: 1 << 20})
		r, err := d.Rows(data)
		if r == nil {
			if err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		defer r.Close()
		pix, rerr := readAllRows(r)
		img, derr := d.Decode(context.Background(), data)
		switch {
		case (rerr == nil) != (derr == nil):
			t.Fatalf("streaming: %v; Decode: %v", rerr, derr)
		case rerr == nil && !bytes.Equal(pix, img.RGB.Pix):
			t.Fatal("streamed rows differ from Decode")
		case rerr != nil && !errors.Is(rerr, ErrCorrupt):
			t.Fatalf("untyped error: %v", rerr)
		}
	})
}
