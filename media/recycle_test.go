package media

import (
	"bytes"
	"context"
	"testing"
)

// TestRecycledMemoryGolden decodes every corpus file into reused memory that
// holds garbage: the pixels must still be the reference's, so a decoder that
// takes recycled buffers writes every byte of them.
func TestRecycledMemoryGolden(t *testing.T) {
	m := loadGolden(t)
	ctx := context.Background()
	for _, c := range m.Cases {
		if c.Error != "" || c.KnownUnsupported || c.Width == 0 {
			continue
		}
		if testing.Short() && len(c.File) > 6 && c.File[:6] == "photo_" {
			continue
		}
		t.Run(c.File, func(t *testing.T) {
			d, _ := New(Options{})
			// Room for the largest destination (4 bytes a pixel, CMYK),
			// within get's "at most twice" rule for 3 bytes a pixel.
			dirty := bytes.Repeat([]byte{0xa5}, 4*c.Width*c.Height)
			d.pix.put(dirty)
			img, err := d.Decode(ctx, readCorpus(t, c.File))
			if err != nil {
				t.Skipf("not decoded in this build: %v", err)
			}
			if !img.Exact {
				return
			}
			if got := sum(img.RGB.Pix); got != c.SHA256 {
				t.Errorf("sha256 in reused memory = %s, want %s", got, c.SHA256)
			}
		})
	}
}

// TestRecycle checks that a recycled image's memory is handed to the next
// decode of the same size, and that the store stays within its bound.
func TestRecycle(t *testing.T) {
	d, _ := New(Options{})
	data := readCorpus(t, "exif_jpeg_o1.jpg")
	img, err := d.Decode(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	want := sum(img.RGB.Pix)
	first := &img.RGB.Pix[0]
	d.Recycle(img)
	if img.RGB != nil {
		t.Fatal("Recycle left the image's pixels reachable")
	}
	img2, err := d.Decode(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	if !img2.Exact {
		t.Skip("the pure-Go JPEG decoder does not reuse memory")
	}
	if &img2.RGB.Pix[0] != first {
		t.Error("the second decode did not reuse the recycled memory")
	}
	if got := sum(img2.RGB.Pix); got != want {
		t.Errorf("pixels differ after reuse: %s, want %s", got, want)
	}

	var s pixelStore
	for range 40 {
		s.put(make([]uint8, 4<<20))
	}
	if s.bytes > recycleBytes || len(s.free) != recycleBytes/(4<<20) {
		t.Errorf("store keeps %d bytes in %d buffers, bound %d", s.bytes, len(s.free), recycleBytes)
	}
	if b := s.get(1 << 20); cap(b) == 4<<20 {
		t.Error("get handed out a buffer over twice the size asked for")
	}
}
