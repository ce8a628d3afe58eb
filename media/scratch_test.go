package media

import (
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
			dirty, err := mapScratch(4 * c.Width * c.Height)
			if err != nil {
				t.Fatal(err)
			}
			for i := range dirty {
				dirty[i] = 0xa5
			}
			d.pix.put(dirty)
			img, release, err := d.DecodeScratch(ctx, readCorpus(t, c.File))
			if err != nil {
				t.Skipf("not decoded in this build: %v", err)
			}
			defer release()
			if !img.Exact {
				return
			}
			if got := sum(img.RGB.Pix); got != c.SHA256 {
				t.Errorf("sha256 in reused memory = %s, want %s", got, c.SHA256)
			}
		})
	}
}

// TestDecodeScratch checks that released scratch memory is handed to the
// next decode of the same size with the same pixels as Decode, and that the
// store stays within its bound.
func TestDecodeScratch(t *testing.T) {
	d, _ := New(Options{})
	ctx := context.Background()
	data := readCorpus(t, "exif_jpeg_o1.jpg")
	heap, err := d.Decode(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	want := sum(heap.RGB.Pix)
	img, release, err := d.DecodeScratch(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	if !img.Exact {
		release()
		t.Skip("the pure-Go JPEG decoder does not use scratch memory")
	}
	first := &img.RGB.Pix[0]
	if got := sum(img.RGB.Pix); got != want {
		t.Errorf("scratch pixels %s, want %s", got, want)
	}
	release()
	img2, release2, err := d.DecodeScratch(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	if &img2.RGB.Pix[0] != first {
		t.Error("the second decode did not reuse the released memory")
	}
	if got := sum(img2.RGB.Pix); got != want {
		t.Errorf("pixels differ after reuse: %s, want %s", got, want)
	}
	release2()
	if _, _, err := d.DecodeScratch(ctx, []byte("not an image")); err == nil {
		t.Error("garbage decoded")
	}

	var s pixelStore
	for range 40 {
		b, err := s.get(4 << 20)
		if err != nil {
			t.Fatal(err)
		}
		s.put(b)
		b2, _ := s.get(4 << 20) // reuses b
		b3, _ := s.get(4 << 20) // a new mapping
		s.put(b2)
		s.put(b3)
	}
	if s.bytes > scratchBytes || len(s.free) > scratchBytes/(4<<20) {
		t.Errorf("store keeps %d bytes in %d buffers, bound %d", s.bytes, len(s.free), scratchBytes)
	}
	if b, _ := s.get(1 << 20); cap(b) == 4<<20 {
		t.Error("get handed out a buffer over twice the size asked for")
	}
}
