package visiontest

import (
	"context"
	"testing"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// BenchProcess benchmarks p's whole ProcessImage (resizes included) on a
// synthesized w×h image in dtype dt; SetBytes is the pixel_values size.
func BenchProcess(b *testing.B, p vision.Processor, w, h int, dt tensor.DType) {
	img := Synth(w, h, 0)
	plan, err := p.PlanImage(w, h, vision.Overrides{})
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, plan.Bytes(dt))
	b.SetBytes(int64(len(dst)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.ProcessImage(context.Background(), img, plan, dt, dst); err != nil {
			b.Fatal(err)
		}
	}
}
