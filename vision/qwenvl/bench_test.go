package qwenvl

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

// Normalize + patchify of already-sized images (the resize is benchmarked in
// imaging/resample). SetBytes is the pixel_values size, so MB/s compares
// directly with BenchmarkMemoryFloor.
func BenchmarkNormalizePatchify(b *testing.B) {
	cases := []struct {
		preset string
		w, h   int
	}{
		{"qwen2.5-vl", 2548, 1596}, // 2560×1600 at the Qwen2.5 defaults
		{"qwen3-vl", 1280, 960},
	}
	for _, tc := range cases {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
			for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
				name := fmt.Sprintf("%s/%dx%d/%v/workers=%d", tc.preset, tc.w, tc.h, dt, workers)
				b.Run(name, func(b *testing.B) {
					cfg := presetMust(b, tc.preset)
					p, err := New(cfg, Options{Workers: workers})
					if err != nil {
						b.Fatal(err)
					}
					visiontest.BenchPlan(b, p, visiontest.Synth(tc.w, tc.h, 0), p.planFor(tc.w, tc.h, tc.w, tc.h), dt)
				})
			}
		}
	}
}

// BenchmarkMemoryFloor clears and copies a buffer of the float32
// pixel_values size of 2560×1600 at the Qwen2.5 defaults: the bandwidth bound
// for writing it.
func BenchmarkMemoryFloor(b *testing.B) {
	n := 2548 / 14 * (1596 / 14) * 1176 * 4
	dst := make([]byte, n)
	src := make([]byte, n)
	b.Run("memclr", func(b *testing.B) {
		b.SetBytes(int64(n))
		for b.Loop() {
			clear(dst)
		}
	})
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(int64(n))
		for b.Loop() {
			copy(dst, src)
		}
	})
}

// BenchmarkPlanImage is the planning cost (no pixels).
func BenchmarkPlanImage(b *testing.B) {
	p := mustLoad(b, "qwen2.5-vl")
	for b.Loop() {
		if _, err := p.PlanImage(2560, 1600, vision.Overrides{MaxPixels: 1003520}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProcessImage is the whole ProcessImage call (Pillow-exact resize
// via imaging/resample, then normalize + patchify) for a 2560×1600 source.
func BenchmarkProcessImage(b *testing.B) {
	for _, preset := range []string{"qwen2.5-vl", "qwen3-vl"} {
		b.Run(preset+"/2560x1600/float32", func(b *testing.B) {
			p := mustLoad(b, preset)
			visiontest.Bench(b, p, visiontest.Synth(2560, 1600, 0), tensor.Float32)
		})
	}
}
