package resample

import (
	"errors"
	"slices"
	"testing"
)

// The vectors of docs/preprocessing.md ("Checked vectors"), produced with
// Pillow 9.4.0.
func TestCoefficientsSpecVectors(t *testing.T) {
	tests := []struct {
		in, out int
		taps    int // 0: not checked
		i       int
		lo, cnt int
		want    []int32
	}{
		{10, 4, 11, 0, 0, 6, []int32{1475606, 1766927, 1017815, 123947, -132995, -56998}},
		{1000, 756, 0, 0, 0, 3, []int32{3187893, 1245985, -239574}},
		{1000, 756, 0, 1, 0, 5, []int32{-146883, 2307242, 2213774, -166300, -13530}},
	}
	for _, tc := range tests {
		bounds, w, taps, err := Coefficients(tc.in, tc.out, Bicubic)
		if err != nil {
			t.Fatal(err)
		}
		if tc.taps != 0 && taps != tc.taps {
			t.Errorf("%d→%d: taps %d, want %d", tc.in, tc.out, taps, tc.taps)
		}
		lo, cnt := bounds[2*tc.i], bounds[2*tc.i+1]
		got := w[tc.i*taps : tc.i*taps+cnt]
		if lo != tc.lo || cnt != tc.cnt || !slices.Equal(got, tc.want) {
			t.Errorf("%d→%d output %d: lo %d count %d q %v; want lo %d count %d q %v",
				tc.in, tc.out, tc.i, lo, cnt, got, tc.lo, tc.cnt, tc.want)
		}
		for j := tc.i*taps + cnt; j < (tc.i+1)*taps; j++ {
			if w[j] != 0 {
				t.Errorf("%d→%d output %d: unused tap %d = %d", tc.in, tc.out, tc.i, j-tc.i*taps, w[j])
			}
		}
	}
}

func TestCoefficientsErrors(t *testing.T) {
	tests := []struct {
		in, out int
		f       Filter
		want    error
	}{
		{0, 4, Bicubic, ErrInvalid},
		{4, -1, Bicubic, ErrInvalid},
		{MaxSide + 1, 4, Bicubic, ErrTooLarge},
		{4, 4, Nearest, ErrUnsupported},
		{4, 4, Filter(9), ErrUnsupported},
	}
	for _, tc := range tests {
		_, _, _, err := Coefficients(tc.in, tc.out, tc.f)
		if !errors.Is(err, tc.want) {
			t.Errorf("Coefficients(%d, %d, %v) = %v, want %v", tc.in, tc.out, tc.f, err, tc.want)
		}
	}
}

// The fixed-count, split and block forms must hold the same weights at
// the same source positions as the Pillow table.
func TestTableForms(t *testing.T) {
	blocks := 0
	for _, f := range []Filter{Box, Bilinear, Hamming, Bicubic, Lanczos} {
		k, _ := kernelOf(f)
		for in := 1; in <= 70; in++ {
			for out := 1; out <= 70; out++ {
				tb := buildTable(in, out, k)
				blockAt := map[int]int{} // output → index of its block
				if b := tb.blk; b != nil {
					blocks++
					for i := range b.end - b.first {
						for k := range 8 {
							blockAt[8*(b.first+i)+k] = i
						}
					}
				}
				for i := range out {
					dense := make([]int32, in)
					copy(dense[tb.lo[i]:], tb.w[i*tb.taps:i*tb.taps+int(tb.cnt[i])])
					fixed := make([]int32, in)
					copy(fixed[tb.fixLo[i]:], tb.fixW[i*tb.fixN:(i+1)*tb.fixN])
					if !slices.Equal(dense, fixed) {
						t.Fatalf("%v %d→%d output %d: fixed form %v, table %v", f, in, out, i, fixed, dense)
					}
					split := make([]int32, in)
					for j := range tb.groups * 4 {
						at := (i*tb.groups+j/4)*8 + j%4
						w := int32(tb.w16[at])<<12 + int32(tb.w16[at+4])
						if p := int(tb.fixLo[i]) + j; p < in {
							split[p] = w
						} else if w != 0 {
							t.Fatalf("%v %d→%d output %d: split weight beyond the row", f, in, out, i)
						}
					}
					if tb.hSafe16 > 0 && !slices.Equal(dense, split) {
						t.Fatalf("%v %d→%d output %d: split form %v, table %v", f, in, out, i, split, dense)
					}
					if bi, ok := blockAt[i]; ok {
						b := tb.blk
						off := 0
						for _, j := range b.nj[:bi] {
							off += (int(j) + 1) / 2 * 48
						}
						lane := i % 8
						blk := make([]int32, in)
						for j := range int(b.nj[bi]) {
							blk[int(b.b0[bi])+b.stride*lane+j] = blockWeight(b.w[off:], j, 3*lane)
						}
						if !slices.Equal(dense, blk) {
							t.Fatalf("%v %d→%d output %d: block form %v, table %v", f, in, out, i, blk, dense)
						}
					}
				}
			}
		}
	}
	if blocks == 0 {
		t.Error("no table had a block form")
	}
}

func TestParseFilter(t *testing.T) {
	tests := []struct {
		in   string
		want Filter
		ok   bool
	}{
		{"bicubic", Bicubic, true}, {"BICUBIC", Bicubic, true}, {"3", Bicubic, true},
		{"nearest", Nearest, true}, {"0", Nearest, true}, {"lanczos", Lanczos, true},
		{"antialias", Lanczos, true}, {"1", Lanczos, true}, {"Box", Box, true},
		{"4", Box, true}, {"hamming", Hamming, true}, {"5", Hamming, true},
		{"bilinear", Bilinear, true}, {"2", Bilinear, true},
		{"6", 0, false}, {"-1", 0, false}, {"cubic", 0, false}, {"", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseFilter(tc.in)
		if tc.ok != (err == nil) || (tc.ok && got != tc.want) {
			t.Errorf("ParseFilter(%q) = %v, %v", tc.in, got, err)
		}
		if !tc.ok && !errors.Is(err, ErrUnsupported) {
			t.Errorf("ParseFilter(%q) error %v does not wrap ErrUnsupported", tc.in, err)
		}
		if tc.ok {
			if back, err := ParseFilter(got.String()); err != nil || back != got {
				t.Errorf("ParseFilter(%v.String()) = %v, %v", got, back, err)
			}
		}
	}
	if s := Filter(7).String(); s != "filter(7)" {
		t.Errorf("Filter(7).String() = %q", s)
	}
}
