package imageprep

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

// BenchmarkImage measures one 2560×1600 JPEG through the whole pipeline
// (decode, resize, normalize + patchify into a reused buffer).
func BenchmarkImage(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "Garden.jpg"))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		o    vision.Overrides
	}{
		{"default", vision.Overrides{}},
		{"max_pixels_1003520", vision.Overrides{MaxPixels: 1003520}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			proc, err := qwenvl.Load("qwen2.5-vl")
			if err != nil {
				b.Fatal(err)
			}
			p, err := New(Options{Decoder: newGoldenDecoder(b), Processor: proc})
			if err != nil {
				b.Fatal(err)
			}
			var buf []byte
			alloc := func(n int) ([]byte, error) {
				if cap(buf) < n {
					buf = make([]byte, n)
				}
				return buf[:n], nil
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Image(context.Background(), Request{Data: data, Overrides: bc.o, Alloc: alloc}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
