package clip

import (
	"testing"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

// BenchmarkProcessImage times one 2560×1600 image (the photo corpus size).
func BenchmarkProcessImage(b *testing.B) {
	p, err := Load("testdata/llava-1.5", Options{})
	if err != nil {
		b.Fatal(err)
	}
	visiontest.Bench(b, p, visiontest.Synth(2560, 1600, 0), tensor.BFloat16)
}
