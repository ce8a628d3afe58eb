package resample

import (
	"context"
	"slices"
	"testing"
)

// FuzzResize resizes a pattern image with fuzzed sizes and filter: no panic,
// the parallel path equals the serial one, and small cases equal the
// reference.
func FuzzResize(f *testing.F) {
	f.Add(uint16(5), uint16(3), uint16(3), uint16(2), uint8(3), uint64(1), uint8(0))
	f.Add(uint16(1), uint16(300), uint16(2), uint16(100), uint8(1), uint64(2), uint8(1))
	f.Add(uint16(200), uint16(1), uint16(1), uint16(200), uint8(5), uint64(3), uint8(2))
	f.Add(uint16(64), uint16(64), uint16(64), uint16(64), uint8(0), uint64(4), uint8(0))
	ctx := context.Background()
	serial, _ := New(Options{Workers: 1})
	par, _ := New(Options{Workers: 3})
	f.Fuzz(func(t *testing.T, wi, hi, wo, ho uint16, fl uint8, seed uint64, pat uint8) {
		win, hin, wout, hout := int(wi%700)+1, int(hi%700)+1, int(wo%700)+1, int(ho%700)+1
		flt := Filter(fl % 6)
		p := []pattern{patNoise, patEdges, patBinary, patSynthetic}[pat%4]
		src := patternImage(win, hin, p, seed)
		a, err := serial.Resize(ctx, src, wout, hout, flt)
		if err != nil {
			t.Fatal(err)
		}
		b, err := par.Resize(ctx, src, wout, hout, flt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Pix, b.Pix) {
			t.Fatalf("%dx%d→%dx%d %v: parallel differs from serial", win, hin, wout, hout, flt)
		}
		if win*hin <= 4096 && wout*hout <= 4096 {
			if want := refResize(src, wout, hout, flt, true); !slices.Equal(a.Pix, want.Pix) {
				t.Fatalf("%dx%d→%dx%d %v: differs from the reference", win, hin, wout, hout, flt)
			}
		}
	})
}
