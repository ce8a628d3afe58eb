package qwenvl

import (
	"errors"
	"testing"

	"github.com/mmgate/mmgate/vision"
)

// The transformers v5 smart_resize vectors (docs/preprocessing.md, "Test
// vectors"): rows checked against the reference and rows computed from the
// steps, for Qwen2/2.5 (28, 3136, 12845056) and Qwen3 (32, 65536, 16777216).
// A zero result means an aspect-ratio error.
func TestSmartResizeV5(t *testing.T) {
	type hw struct{ h, w int }
	tests := []struct {
		in            hw
		qwen25, qwen3 hw
	}{
		{hw{70, 70}, hw{56, 56}, hw{256, 256}},
		{hw{42, 98}, hw{56, 112}, hw{192, 416}},
		{hw{1080, 1920}, hw{1092, 1932}, hw{1088, 1920}},
		{hw{480, 640}, hw{476, 644}, hw{480, 640}},
		{hw{1000, 750}, hw{1008, 756}, hw{992, 736}},
		{hw{4000, 3000}, hw{4004, 2996}, hw{4000, 3008}},
		{hw{8000, 6000}, hw{4116, 3080}, hw{4704, 3520}},
		{hw{100, 20}, hw{112, 28}, hw{576, 128}},
		{hw{28, 5600}, hw{28, 5600}, hw{32, 5600}},
		{hw{20, 20}, hw{56, 56}, hw{256, 256}},
		{hw{1, 201}, hw{}, hw{}},
		{hw{201, 1}, hw{}, hw{}},
		{hw{224, 224}, hw{224, 224}, hw{256, 256}},
		{hw{50, 7000}, hw{56, 7000}, hw{64, 7008}},
		// Computed from the steps.
		{hw{1, 1}, hw{56, 56}, hw{256, 256}},
		// 27×29 (W×H): the steps give h > w for this taller-than-wide input.
		{hw{29, 27}, hw{84, 56}, hw{288, 256}},
		{hw{27, 29}, hw{56, 84}, hw{256, 288}},
		{hw{1, 200}, hw{28, 812}, hw{32, 3648}},
		{hw{120, 160}, hw{112, 168}, hw{224, 320}},
		{hw{600, 33}, hw{588, 28}, hw{1120, 64}},
		{hw{1081, 1919}, hw{1092, 1932}, hw{1088, 1920}},
		{hw{1600, 2560}, hw{1596, 2548}, hw{1600, 2560}},
		{hw{6000, 30}, hw{5992, 28}, hw{6016, 32}},
		{hw{5000, 30}, hw{5012, 28}, hw{4992, 32}},
	}
	models := []struct {
		name         string
		factor       int
		minPx, maxPx float64
		want         func(i int) hw
	}{
		{"qwen2.5", 28, 3136, 12845056, func(i int) hw { return tests[i].qwen25 }},
		{"qwen3", 32, 65536, 16777216, func(i int) hw { return tests[i].qwen3 }},
	}
	for _, m := range models {
		for i, tc := range tests {
			want := m.want(i)
			h, w, err := SmartResize(tc.in.h, tc.in.w, m.factor, m.minPx, m.maxPx)
			if want == (hw{}) {
				if !errors.Is(err, vision.ErrAspectRatio) {
					t.Errorf("%s %v: got (%d, %d), %v; want an aspect-ratio error", m.name, tc.in, h, w, err)
				}
				continue
			}
			if err != nil || h != want.h || w != want.w {
				t.Errorf("%s %v: got (%d, %d), %v; want %v", m.name, tc.in, h, w, err, want)
			}
		}
	}
}

func TestSmartResizeErrors(t *testing.T) {
	tests := []struct {
		h, w, factor int
		minPx        float64
		want         error
	}{
		{0, 10, 28, 3136, vision.ErrTooSmall},
		{10, -1, 28, 3136, vision.ErrTooSmall},
		{10, 10, 0, 3136, vision.ErrBadOptions},
		{1, 201, 28, 3136, vision.ErrAspectRatio},
		{4020, 20, 28, 3136, vision.ErrAspectRatio}, // 201
		{10, 10, 28, 0, vision.ErrTooSmall},         // rounds to 0, no grow branch
	}
	for _, tc := range tests {
		_, _, err := SmartResize(tc.h, tc.w, tc.factor, tc.minPx, 12845056)
		if !errors.Is(err, tc.want) {
			t.Errorf("SmartResize(%d, %d, %d, %v): err = %v, want %v", tc.h, tc.w, tc.factor, tc.minPx, err, tc.want)
		}
	}
	// Exactly 200 is accepted.
	if _, _, err := SmartResize(4000, 20, 28, 3136, 12845056); err != nil {
		t.Errorf("ratio 200: %v", err)
	}
}

// The result is always a positive multiple of factor and, for sane bounds,
// within the pixel budget.
func FuzzSmartResize(f *testing.F) {
	f.Add(1080, 1920, 28)
	f.Add(1, 200, 32)
	f.Add(5000, 30, 32)
	f.Fuzz(func(t *testing.T, H, W, factor int) {
		if H <= 0 || W <= 0 || H > 1<<20 || W > 1<<20 || factor <= 0 || factor > 64 {
			t.Skip()
		}
		const maxPx = 16777216
		h, w, err := SmartResize(H, W, factor, 4096, maxPx)
		if err != nil {
			if !errors.Is(err, vision.ErrAspectRatio) {
				t.Fatalf("(%d, %d, %d): unexpected error %v", H, W, factor, err)
			}
			return
		}
		if h <= 0 || w <= 0 || h%factor != 0 || w%factor != 0 {
			t.Fatalf("(%d, %d, %d) → (%d, %d)", H, W, factor, h, w)
		}
		if h*w > maxPx && h > factor && w > factor {
			t.Fatalf("(%d, %d, %d) → (%d, %d) over budget", H, W, factor, h, w)
		}
	})
}
