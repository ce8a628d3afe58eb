package gemma3

import (
	"testing"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

// BenchmarkProcessImage times one 2560×1600 image (the photo corpus size),
// without and with pan-and-scan (two crops).
func BenchmarkProcessImage(b *testing.B) {
	img := visiontest.Synth(2560, 1600, 0)
	b.Run("default", func(b *testing.B) { visiontest.Bench(b, newProc(b, nil), img, tensor.BFloat16) })
	b.Run("pan_and_scan", func(b *testing.B) { visiontest.Bench(b, newProc(b, pasOn), img, tensor.BFloat16) })
}
