package qwenvl

import (
	"context"
	"testing"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// BenchmarkPatchifyGroup32 is the temporal patchify of one group of two
// 1056×576 frames (a 20 s 720p clip at the Qwen3-VL budget) into a
// pre-faulted destination.
func BenchmarkPatchifyGroup32(b *testing.B) {
	l := layout{p: 16, m: 2, tau: 2, gh: 36, gw: 66}
	frames := synthFrames(2, 1056, 576)
	p := loadPreset(b, "qwen3-vl")
	dst := make([]byte, l.gh*l.gw*l.cols()*4)
	for i := range dst {
		dst[i] = 1
	}
	b.SetBytes(int64(len(dst)))
	for b.Loop() {
		patchifyGroup32(dst, frames, l, p.table.Bits32())
	}
}

// BenchmarkProcessVideo720p: 40 frames 1280×720 → 1056×576 (Qwen3-VL),
// resize + normalize + patchify, float32.
func BenchmarkProcessVideo720p(b *testing.B) {
	p := loadPreset(b, "qwen3-vl")
	plan, err := p.PlanVideo(vision.VideoInfo{Width: 1280, Height: 720, Frames: 600, FPS: 30}, vision.VideoOverrides{})
	if err != nil {
		b.Fatal(err)
	}
	frames := synthFrames(len(plan.Indices), 1280, 720)
	dst := make([]byte, plan.Bytes(tensor.Float32))
	b.SetBytes(int64(len(dst)))
	for b.Loop() {
		if _, err := p.ProcessVideo(context.Background(), frames, plan, tensor.Float32, dst); err != nil {
			b.Fatal(err)
		}
	}
}
