//go:build amd64 && !purego

package resample

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// hpass prefers hpassMADD; hpassAVX2 serves tables where the 16-byte group
// loads would leave the row. Both must equal the Go loop on their ranges.
func TestAsmHorizontalKernels(t *testing.T) {
	if !haveAsm {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	blocks := 0
	defer func() {
		if blocks == 0 {
			t.Error("no table had a block form")
		}
	}()
	for range 300 {
		nIn, nOut := 1+rng.IntN(400), 1+rng.IntN(400)
		k, _ := kernelOf(Filter(1 + rng.IntN(5)))
		tb := buildTable(nIn, nOut, k)
		src := make([]uint8, nIn*3)
		for i := range src {
			src[i] = uint8(rng.Uint32())
		}
		want := make([]uint8, nOut*3)
		hpassGo(want, src, tb, 0, nOut)
		if n := tb.hSafe; n > 0 {
			got := make([]uint8, nOut*3)
			hpassAVX2(&got[0], &src[0], &tb.fixLo[0], &tb.fixW[0], n, tb.fixN)
			if !slices.Equal(got[:n*3], want[:n*3]) {
				t.Fatalf("hpassAVX2 %d→%d taps %d differs", nIn, nOut, tb.fixN)
			}
		}
		if b := tb.blk; b != nil {
			got := make([]uint8, nOut*3)
			x0, x1 := 8*b.first, 8*b.end
			hpassBlocks(&got[3*x0], &src[0], &b.b0[0], &b.nj[0], &b.w[0], b.end-b.first)
			if !slices.Equal(got[3*x0:3*x1], want[3*x0:3*x1]) {
				t.Fatalf("hpassBlocks %d→%d taps %d differs", nIn, nOut, tb.fixN)
			}
			blocks++
		}
		if p := tb.hSafe16 / 2; p > 0 {
			got := make([]uint8, nOut*3)
			hpassMADD(&got[0], &src[0], &tb.fixLo[0], &tb.w16[0], p, tb.groups)
			if !slices.Equal(got[:p*6], want[:p*6]) {
				t.Fatalf("hpassMADD %d→%d taps %d differs", nIn, nOut, tb.fixN)
			}
		}
	}
}
