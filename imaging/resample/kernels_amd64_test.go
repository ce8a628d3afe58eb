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
	blocks := [3]int{}
	defer func() {
		if blocks[1] == 0 || blocks[2] == 0 {
			t.Errorf("tables with a block form of stride 1, 2: %d, %d", blocks[1], blocks[2])
		}
	}()
	for i := range 600 {
		nIn, nOut := 1+rng.IntN(400), 1+rng.IntN(400)
		if i%2 == 1 { // downscales near 2, where stride 2 is chosen
			nOut = 1 + rng.IntN(200)
			nIn = nOut*2 + rng.IntN(nOut+1) - nOut/3
		}
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
			if b.stride == 2 {
				split := make([]uint8, tb.scratchLen())
				splitRowGo(split, src, nIn, 0)
				hpassBlocks2(&got[3*x0], &split[0], &b.off0[0], &b.off1[0], &b.nj[0], &b.w[0], b.end-b.first)
			} else {
				hpassBlocks(&got[3*x0], &src[0], &b.b0[0], &b.nj[0], &b.w[0], b.end-b.first)
			}
			if !slices.Equal(got[3*x0:3*x1], want[3*x0:3*x1]) {
				t.Fatalf("hpassBlocks stride %d %d→%d taps %d differs", b.stride, nIn, nOut, tb.fixN)
			}
			blocks[b.stride]++
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

// splitRow (assembly for whole groups of 16 pixels) must equal splitRowGo,
// and splitRowGo must put pixel p at splitOffset(p, n).
func TestSplitRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 1; n < 200; n++ {
		src := make([]uint8, 3*n)
		for i := range src {
			src[i] = uint8(rng.Uint32())
		}
		want := make([]uint8, 3*n)
		splitRowGo(want, src, n, 0)
		for p := range n {
			if o := splitOffset(p, n); !slices.Equal(want[o:o+3], src[3*p:3*p+3]) {
				t.Fatalf("splitRowGo n=%d: pixel %d not at %d", n, p, o)
			}
		}
		got := make([]uint8, 3*n)
		splitRow(got, src, n)
		if !slices.Equal(got, want) {
			t.Fatalf("splitRow n=%d differs from splitRowGo", n)
		}
	}
}
