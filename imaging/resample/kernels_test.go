package resample

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The dispatching kernels (assembly where available) must equal the
// portable Go loops on every input, including weights that overshoot far
// enough to exercise both ends of the clamp.
func TestKernelsMatchGo(t *testing.T) {
	t.Logf("assembly kernels: %v", haveAsm)
	rng := rand.New(rand.NewPCG(7, 8))
	for iter := range 300 {
		// A real table, its weights optionally replaced by wild values.
		nIn, nOut := 1+rng.IntN(300), 1+rng.IntN(300)
		k, _ := kernelOf(Filter(1 + rng.IntN(5)))
		tb := buildTable(nIn, nOut, k)
		if iter%3 == 0 {
			for i := range tb.fixW {
				tb.fixW[i] = rng.Int32N(1<<24) - 1<<23
			}
			tb.hSafe16, tb.blk = 0, nil
			tb.splitGroups()
			tb.buildBlocks()
		}
		src := make([]uint8, nIn*3)
		for i := range src {
			src[i] = uint8(rng.Uint32())
		}
		got, want := make([]uint8, nOut*3), make([]uint8, nOut*3)
		hpass(got, src, tb, make([]uint8, tb.scratchLen()))
		hpassGo(want, src, tb, 0, nOut)
		if !slices.Equal(got, want) {
			t.Fatalf("hpass %d→%d (taps %d, hSafe %d, hSafe16 %d) differs from hpassGo", nIn, nOut, tb.fixN, tb.hSafe, tb.hSafe16)
		}

		// vrow over n rows of width w.
		n, w := 1+rng.IntN(20), 1+rng.IntN(400)
		rows := make([][]uint8, n)
		for j := range rows {
			rows[j] = make([]uint8, w+rng.IntN(3))
			for i := range rows[j] {
				rows[j][i] = uint8(rng.Uint32())
			}
		}
		ws := make([]int32, n)
		for j := range ws {
			ws[j] = rng.Int32N(1<<24) - 1<<23
		}
		acc := make([]int32, w)
		gotV, wantV := make([]uint8, w), make([]uint8, w)
		vrow(gotV, rows, ws, acc)
		vrowGo(wantV, rows, ws, acc)
		if !slices.Equal(gotV, wantV) {
			t.Fatalf("vrow %d taps × %d samples differs from vrowGo", n, w)
		}
		for i := range wantV { // and vrowGo from the formula
			a := bias
			for j := range rows {
				a += int32(rows[j][i]) * ws[j]
			}
			if wantV[i] != refClip(a) {
				t.Fatalf("vrowGo %d taps sample %d = %d, want %d", n, i, wantV[i], refClip(a))
			}
		}
	}
}
