package glm4v

import (
	"fmt"
	"testing"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

// The whole image path after decoding: resize, normalize, patchify (2560×1600
// resizes to 2548×1596 under the fixture's bounds).
func BenchmarkProcessImage(b *testing.B) {
	p := loadFixture(b, Options{})
	for _, s := range [][2]int{{2560, 1600}, {640, 480}} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
			b.Run(fmt.Sprintf("%dx%d/%v", s[0], s[1], dt), func(b *testing.B) {
				visiontest.Bench(b, p, visiontest.Synth(s[0], s[1], 0), dt)
			})
		}
	}
}
