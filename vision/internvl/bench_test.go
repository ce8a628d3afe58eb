package internvl

import (
	"fmt"
	"testing"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

// The whole image path after decoding: main resize, thumbnail, tiles.
// 2560×1600 takes 3×2 tiles and a thumbnail; 1600×1203 the most, 4×3.
func BenchmarkProcessImage(b *testing.B) {
	p, err := Load("testdata/internvl3", Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range [][2]int{{2560, 1600}, {1600, 1203}, {640, 480}} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
			b.Run(fmt.Sprintf("%dx%d/%v", s[0], s[1], dt), func(b *testing.B) {
				visiontest.Bench(b, p, visiontest.Synth(s[0], s[1], 0), dt)
			})
		}
	}
}
