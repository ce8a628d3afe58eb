package norm

import (
	"math"
	"testing"

	"github.com/mmgate/mmgate/tensor"
)

var (
	clipMean, clipStd = OpenAICLIP()
	half              = [3]float64{0.5, 0.5, 0.5}
)

// The table of docs/preprocessing.md ("Rescale and normalize"), float32
// bits in hex, for CLIP and 0.5/0.5 settings.
func TestTableHex(t *testing.T) {
	clip := New(Params{Rescale: DefaultRescale, Mean: clipMean, Std: clipStd, DoRescale: true, DoNormalize: true})
	h := New(Params{Rescale: DefaultRescale, Mean: half, Std: half, DoRescale: true, DoNormalize: true})
	vs := []int{0, 1, 127, 128, 255}
	tests := []struct {
		name string
		tab  *Table
		c    int
		want [5]uint32
	}{
		{"clip", clip, 0, [5]uint32{0xbfe568dc, 0xbfe38a7f, 0x3d7ce092, 0x3d9c5620, 0x3ff71541}},
		{"clip", clip, 1, [5]uint32{0xbfe044b8, 0xbfde58f1, 0x3e1d9531, 0x3e2cf36b, 0x4004cae5}},
		{"clip", clip, 2, [5]uint32{0xbfbd77d8, 0xbfbba5e1, 0x3ea6c5e6, 0x3eae0dc4, 0x40095660}},
		{"half", h, 0, [5]uint32{0xbf800000, 0xbf7dfdfe, 0xbb808080, 0x3b808100, 0x3f800000}},
		{"half", h, 1, [5]uint32{0xbf800000, 0xbf7dfdfe, 0xbb808080, 0x3b808100, 0x3f800000}},
		{"half", h, 2, [5]uint32{0xbf800000, 0xbf7dfdfe, 0xbb808080, 0x3b808100, 0x3f800000}},
	}
	for _, tc := range tests {
		for i, v := range vs {
			if got := tc.tab.Bits32()[tc.c][v]; got != tc.want[i] {
				t.Errorf("%s c=%d v=%d: %08x (%v), want %08x (%v)", tc.name, tc.c, v,
					got, math.Float32frombits(got), tc.want[i], math.Float32frombits(tc.want[i]))
			}
		}
	}
	// The decimal values of two cells.
	if got := clip.Float32(0, 255); float64(got) != 1.9303361177444458 {
		t.Errorf("clip[0][255] = %v", got)
	}
	if got := h.Float32(1, 1); float64(got) != -0.9921568632125854 {
		t.Errorf("half[1][1] = %v", got)
	}
}

// The 16-bit tables are the float32 table rounded by package tensor, and
// the bits table is the float32 table.
func TestTableDTypes(t *testing.T) {
	tab := New(Params{Rescale: DefaultRescale, Mean: clipMean, Std: clipStd, DoRescale: true, DoNormalize: true})
	for c := range 3 {
		for v := range 256 {
			f := tab.Float32(c, uint8(v))
			if tab.Bits32()[c][v] != math.Float32bits(f) ||
				tab.Bits16(tensor.BFloat16)[c][v] != tensor.BFloat16FromFloat32(f) ||
				tab.Bits16(tensor.Float16)[c][v] != tensor.Float16FromFloat32(f) {
				t.Fatalf("c=%d v=%d: tables disagree", c, v)
			}
		}
	}
}

// With do_rescale / do_normalize off, the steps are skipped, still in
// float32.
func TestValueFlags(t *testing.T) {
	tests := []struct {
		p    Params
		v    uint8
		want float32
	}{
		{Params{Rescale: DefaultRescale, Mean: half, Std: half}, 200, 200},
		{Params{Rescale: DefaultRescale, Mean: half, Std: half, DoRescale: true}, 200, float32(200.0 / 255.0)},
		{Params{Mean: [3]float64{100, 100, 100}, Std: [3]float64{50, 50, 50}, DoNormalize: true}, 200, 2},
		{Params{Rescale: 0.5, Mean: half, Std: half, DoRescale: true, DoNormalize: true}, 3, 2},
		{Params{Rescale: DefaultRescale, Mean: clipMean, Std: clipStd, DoRescale: true, DoNormalize: true}, 0, math.Float32frombits(0xbfe568dc)},
	}
	for _, tc := range tests {
		if got := tc.p.Value(0, tc.v); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.p, got, tc.want)
		}
	}
}

func TestValid(t *testing.T) {
	good := Params{Rescale: DefaultRescale, Mean: half, Std: half, DoRescale: true, DoNormalize: true}
	if !good.Valid() || !(Params{}).Valid() {
		t.Error("valid parameters refused")
	}
	for _, p := range []Params{
		{DoRescale: true},
		{Rescale: math.Inf(1), DoRescale: true},
		{Rescale: math.NaN(), DoRescale: true},
		{Rescale: 1, Std: [3]float64{1, 0, 1}, DoNormalize: true},
		{Rescale: 1, Mean: [3]float64{math.NaN(), 0, 0}, Std: half, DoNormalize: true},
	} {
		if p.Valid() {
			t.Errorf("%+v accepted", p)
		}
	}
}

// Affine's constants are the ones Value uses, and only when both steps
// are on.
func TestAffine(t *testing.T) {
	p := Params{Rescale: DefaultRescale, Mean: clipMean, Std: clipStd, DoRescale: true, DoNormalize: true}
	rescale, mean, std, ok := New(p).Affine()
	if !ok || rescale != DefaultRescale {
		t.Fatalf("Affine() = %v, %v", rescale, ok)
	}
	for c := range 3 {
		for v := range 256 {
			x := float32(float64(v) * rescale)
			if got, want := math.Float32bits((x-mean[c])/std[c]), math.Float32bits(p.Value(c, uint8(v))); got != want {
				t.Fatalf("c=%d v=%d: %08x from the constants, %08x from Value", c, v, got, want)
			}
		}
	}
	for _, q := range []Params{{Rescale: DefaultRescale, DoRescale: true}, {Mean: clipMean, Std: clipStd, DoNormalize: true}} {
		if _, _, _, ok := New(q).Affine(); ok {
			t.Errorf("%+v: Affine ok with a step off", q)
		}
	}
}
