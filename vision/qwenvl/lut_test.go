package qwenvl

import (
	"math"
	"testing"

	"github.com/mmgate/mmgate/tensor"
)

// G3: the spec's LUT table (§11), float32 bits in hex.
func TestNormTableHex(t *testing.T) {
	clip := newNormTable(defaultRescale, clipMean, clipStd, true, true)
	half := newNormTable(defaultRescale, [3]float64{0.5, 0.5, 0.5}, [3]float64{0.5, 0.5, 0.5}, true, true)
	vs := []int{0, 1, 127, 128, 255}
	tests := []struct {
		name string
		tab  *normTable
		c    int
		want [5]uint32
	}{
		{"clip", clip, 0, [5]uint32{0xbfe568dc, 0xbfe38a7f, 0x3d7ce092, 0x3d9c5620, 0x3ff71541}},
		{"clip", clip, 1, [5]uint32{0xbfe044b8, 0xbfde58f1, 0x3e1d9531, 0x3e2cf36b, 0x4004cae5}},
		{"clip", clip, 2, [5]uint32{0xbfbd77d8, 0xbfbba5e1, 0x3ea6c5e6, 0x3eae0dc4, 0x40095660}},
		{"half", half, 0, [5]uint32{0xbf800000, 0xbf7dfdfe, 0xbb808080, 0x3b808100, 0x3f800000}},
		{"half", half, 1, [5]uint32{0xbf800000, 0xbf7dfdfe, 0xbb808080, 0x3b808100, 0x3f800000}},
		{"half", half, 2, [5]uint32{0xbf800000, 0xbf7dfdfe, 0xbb808080, 0x3b808100, 0x3f800000}},
	}
	for _, tc := range tests {
		for i, v := range vs {
			if got := tc.tab.bits[tc.c][v]; got != tc.want[i] {
				t.Errorf("%s c=%d v=%d: %08x (%v), want %08x (%v)", tc.name, tc.c, v,
					got, math.Float32frombits(got), tc.want[i], math.Float32frombits(tc.want[i]))
			}
		}
	}
	// The decimal values of the spec for two cells.
	if got := clip.f32[0][255]; float64(got) != 1.9303361177444458 {
		t.Errorf("clip[0][255] = %v", got)
	}
	if got := half.f32[1][1]; float64(got) != -0.9921568632125854 {
		t.Errorf("half[1][1] = %v", got)
	}
}

// The 16-bit tables are the float32 table rounded by package tensor, and the
// bits table is the float32 table.
func TestNormTableDTypes(t *testing.T) {
	tab := newNormTable(defaultRescale, clipMean, clipStd, true, true)
	for c := range 3 {
		for v := range 256 {
			f := tab.f32[c][v]
			if tab.bits[c][v] != math.Float32bits(f) ||
				tab.bf16[c][v] != tensor.BFloat16FromFloat32(f) ||
				tab.f16[c][v] != tensor.Float16FromFloat32(f) {
				t.Fatalf("c=%d v=%d: tables disagree", c, v)
			}
		}
	}
}

// With do_rescale / do_normalize off, the steps are skipped, still in float32.
func TestNormalizeValueFlags(t *testing.T) {
	tests := []struct {
		v                  uint8
		rescale, mean, std float64
		doRescale, doNorm  bool
		want               float32
	}{
		{200, defaultRescale, 0.5, 0.5, false, false, 200},
		{200, defaultRescale, 0.5, 0.5, true, false, float32(200.0 / 255.0)},
		{200, defaultRescale, 100, 50, false, true, 2},
		{3, 0.5, 0.5, 0.5, true, true, 2},
		{0, defaultRescale, 0.48145466, 0.26862954, true, true, math.Float32frombits(0xbfe568dc)},
	}
	for _, tc := range tests {
		got := normalizeValue(tc.v, tc.rescale, tc.mean, tc.std, tc.doRescale, tc.doNorm)
		if got != tc.want {
			t.Errorf("normalizeValue(%d, rescale=%v mean=%v std=%v, %v, %v) = %v, want %v",
				tc.v, tc.rescale, tc.mean, tc.std, tc.doRescale, tc.doNorm, got, tc.want)
		}
	}
}
