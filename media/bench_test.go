package media

import (
	"context"
	"testing"
)

// Compare BenchmarkDecodeJPEGPhoto with libjpeg-turbo's own decoder and with
// the reference loader on the same file (see testdata/README.md):
//
//	djpeg -rgb -outfile /dev/null testdata/corpus/photo_aqua.jpg
//	/usr/bin/python3 -m timeit -s 'from PIL import Image' \
//	  'Image.open("testdata/corpus/photo_aqua.jpg").convert("RGB")'
func benchDecode(b *testing.B, name string) {
	data := readCorpus(b, name)
	d, _ := New(Options{})
	ctx := context.Background()
	img, err := d.Decode(ctx, data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(img.RGB.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Decode(ctx, data); err != nil {
			b.Fatal(err)
		}
	}
}

// 2560×1600 4:2:0 JPEG (a real photo).
func BenchmarkDecodeJPEGPhoto(b *testing.B) { benchDecode(b, "photo_aqua.jpg") }

// 1919×1081 4:2:2 JPEG.
func BenchmarkDecodeJPEG422(b *testing.B) { benchDecode(b, "jpeg_1919x1081_422.jpg") }

// 4096×4096 lossy WebP (a real photo).
func BenchmarkDecodeWebPPhoto(b *testing.B) { benchDecode(b, "photo_wood.webp") }

// 3640×2400 RGBA PNG, composited onto white.
func BenchmarkDecodePNGRGBA(b *testing.B) { benchDecode(b, "photo_city.png") }

// Header-only probe of the 2560×1600 JPEG.
func BenchmarkProbeJPEG(b *testing.B) {
	data := readCorpus(b, "photo_aqua.jpg")
	d, _ := New(Options{})
	for b.Loop() {
		if _, err := d.Probe(data); err != nil {
			b.Fatal(err)
		}
	}
}

// Orientation 6 on a 2560×1600 image: the one extra copy EXIF costs.
func BenchmarkOrient6(b *testing.B) {
	data := readCorpus(b, "photo_aqua.jpg")
	d, _ := New(Options{})
	img, _ := d.Decode(context.Background(), data)
	b.SetBytes(int64(len(img.RGB.Pix)))
	for b.Loop() {
		orient(img.RGB, 6)
	}
}
