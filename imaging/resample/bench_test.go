package resample

import (
	"context"
	"fmt"
	"testing"

	"github.com/mmgate/mmgate/imaging"
)

// Benchmarks on the synthetic pattern. MB/s counts source bytes.
//
//	go test ./imaging/resample -run '^$' -bench . -benchtime=10x
func BenchmarkResize(b *testing.B) {
	cases := []struct {
		win, hin, wout, hout int
		f                    Filter
	}{
		{2560, 1600, 2548, 1596, Bicubic}, // Qwen2.5-VL default pixel budget
		{2560, 1600, 1260, 784, Bicubic},  // max_pixels 1003520
		{1280, 960, 1288, 952, Bicubic},
		{1280, 960, 644, 476, Bicubic},
		{1920, 1080, 400, 225, Lanczos},
		{30, 6000, 28, 5992, Bicubic}, // tall-image rule
	}
	for _, c := range cases {
		src := patternImage(c.win, c.hin, patSynthetic, 1)
		for _, workers := range []int{1, 0} {
			name := fmt.Sprintf("%dx%d-%dx%d-%v-workers%d", c.win, c.hin, c.wout, c.hout, c.f, workers)
			b.Run(name, func(b *testing.B) {
				r, err := New(Options{Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				dst := imaging.NewRGB(c.wout, c.hout)
				ctx := context.Background()
				b.SetBytes(int64(len(src.Pix)))
				b.ReportAllocs()
				for b.Loop() {
					if err := r.ResizeInto(ctx, dst, src, c.f); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkTable measures building the tables of a 2560×1600 → 2548×1596
// resize (a cache miss).
func BenchmarkTable(b *testing.B) {
	k, _ := kernelOf(Bicubic)
	b.ReportAllocs()
	for b.Loop() {
		buildTable(2560, 2548, k)
		buildTable(1600, 1596, k)
	}
}
