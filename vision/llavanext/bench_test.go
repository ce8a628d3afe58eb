package llavanext

import (
	"testing"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision/planar/planartest"
)

// BenchmarkProcessImage times one 2560×1600 image (the photo corpus size).
func BenchmarkProcessImage(b *testing.B) {
	p, err := Load("testdata/llava-next", Options{})
	if err != nil {
		b.Fatal(err)
	}
	planartest.Bench(b, p, planartest.SynthImage(2560, 1600, 0), tensor.BFloat16)
}
