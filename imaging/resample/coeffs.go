package resample

import (
	"fmt"
	"math"
)

// precisionBits is Pillow's fixed-point precision for 8-bit images:
// 32 − 8 − 2 bits.
const precisionBits = 22

// table holds the fixed-point coefficients for one axis, n_in samples to
// n_out, exactly as Pillow's precompute_coeffs + normalize_coeffs_8bpc build
// them.
type table struct {
	nIn, nOut int
	// taps is Pillow's row stride ksize = 2·ceil(support·fscale) + 1.
	taps int
	// lo[i], cnt[i]: output i reads source samples [lo, lo+cnt).
	lo, cnt []int32
	// w[i*taps : i*taps+cnt[i]] are output i's weights; the rest are 0.
	w []int32
	// maxCnt is the largest cnt.
	maxCnt int

	// The fixed-count form used by the horizontal pass: output i reads
	// source samples [fixLo[i], fixLo[i]+fixN) with weights
	// fixW[i*fixN : (i+1)*fixN], where fixN = maxCnt and the weights outside
	// [lo, lo+cnt) are 0. Adding zero products leaves the sums unchanged.
	fixN  int
	fixLo []int32
	fixW  []int32
	// hSafe counts the leading outputs that do not read the last source
	// sample, so a kernel may load 4 bytes per 3-byte pixel.
	hSafe int

	// The split form used by the amd64 horizontal kernel: the fixed-count
	// taps in groups of four (the last padded with zero weights), each
	// weight w split as (w >> 12)·4096 + (w & 4095) so both halves fit in
	// int16. Group g of output i is w16[(i*groups+g)*8:][:8]: the four high
	// halves, then the four low halves. The sum of products is then
	// 4096·Σ s·hi + Σ s·lo, equal to Σ s·w in 32-bit wrapping arithmetic.
	// hSafe16 counts the leading outputs whose 16-byte group loads stay
	// inside the source row.
	groups  int
	w16     []int16
	hSafe16 int

	// blk is the block form (blocks.go), nil when not worth it.
	blk *blockForm
}

// sizeKind returns nil, ErrInvalid or ErrTooLarge for a pair of sizes.
func sizeKind(sizes ...int) error {
	for _, n := range sizes {
		if n <= 0 {
			return ErrInvalid
		}
	}
	for _, n := range sizes {
		if n > MaxSide {
			return ErrTooLarge
		}
	}
	return nil
}

// buildTable computes the coefficient table (docs/preprocessing.md,
// "Coefficient tables"). Every product that feeds an addition is rounded
// explicitly.
func buildTable(nIn, nOut int, k kernel) *table {
	scale := float64(nIn) / float64(nOut)
	fscale := scale
	if fscale < 1 {
		fscale = 1
	}
	sup := float64(k.support * fscale)
	taps := int(math.Ceil(sup))*2 + 1
	inv := 1.0 / fscale

	t := &table{
		nIn: nIn, nOut: nOut, taps: taps,
		lo:  make([]int32, nOut),
		cnt: make([]int32, nOut),
		w:   make([]int32, nOut*taps),
	}
	pre := make([]float64, taps)
	for i := 0; i < nOut; i++ {
		center := float64((float64(i) + 0.5) * scale)
		lo := int(center - sup + 0.5)
		if lo < 0 {
			lo = 0
		}
		hi := int(center + sup + 0.5)
		if hi > nIn {
			hi = nIn
		}
		n := hi - lo
		total := 0.0
		for j := 0; j < n; j++ {
			w := k.weight(float64((float64(lo+j) - center + 0.5) * inv))
			pre[j] = w
			total += w
		}
		row := t.w[i*taps : i*taps+taps]
		for j := 0; j < n; j++ {
			w := pre[j]
			if total != 0 {
				w /= total
			}
			if w < 0 {
				row[j] = int32(-0.5 + float64(w*(1<<precisionBits)))
			} else {
				row[j] = int32(0.5 + float64(w*(1<<precisionBits)))
			}
		}
		t.lo[i] = int32(lo)
		t.cnt[i] = int32(n)
		if n > t.maxCnt {
			t.maxCnt = n
		}
	}
	t.fixN = t.maxCnt
	t.fixLo = make([]int32, nOut)
	t.fixW = make([]int32, nOut*t.fixN)
	for i := 0; i < nOut; i++ {
		lo := int(t.lo[i])
		fl := min(lo, nIn-t.fixN)
		t.fixLo[i] = int32(fl)
		copy(t.fixW[i*t.fixN+lo-fl:], t.w[i*taps:i*taps+int(t.cnt[i])])
		if fl+t.fixN < nIn && t.hSafe == i {
			t.hSafe = i + 1
		}
	}
	t.splitGroups()
	t.buildBlocks()
	return t
}

func (t *table) splitGroups() {
	g := (t.fixN + 3) / 4
	t.groups = g
	t.w16 = make([]int16, t.nOut*g*8)
	for _, w := range t.fixW {
		if w>>12 != int32(int16(w>>12)) {
			return // hSafe16 = 0: the split form is not used
		}
	}
	for i := 0; i < t.nOut; i++ {
		for j, w := range t.fixW[i*t.fixN : (i+1)*t.fixN] {
			at := (i*g+j/4)*8 + j%4
			t.w16[at] = int16(w >> 12)
			t.w16[at+4] = int16(w & 4095)
		}
		if 3*(int(t.fixLo[i])+4*(g-1))+16 <= 3*t.nIn && t.hSafe16 == i {
			t.hSafe16 = i + 1
		}
	}
}

// Coefficients returns Pillow's fixed-point coefficient table for resizing
// one axis from inSize to outSize samples with filter f (any filter except
// Nearest, which has no table). bounds holds (lo, count) per output sample;
// weights holds taps entries per output sample, of which the first count
// are used and the rest are 0. The weights are 22-bit fixed point and are
// not renormalized: their sum may differ from 1<<22 by a few units.
func Coefficients(inSize, outSize int, f Filter) (bounds []int, weights []int32, taps int, err error) {
	if err := sizeKind(inSize, outSize); err != nil {
		return nil, nil, 0, fmt.Errorf("resample: coefficients %d→%d: %w", inSize, outSize, err)
	}
	k, ok := kernelOf(f)
	if !ok {
		return nil, nil, 0, fmt.Errorf("resample: coefficients for %v: %w", f, ErrUnsupported)
	}
	t := buildTable(inSize, outSize, k)
	bounds = make([]int, 2*outSize)
	for i := range outSize {
		bounds[2*i] = int(t.lo[i])
		bounds[2*i+1] = int(t.cnt[i])
	}
	return bounds, append([]int32(nil), t.w...), t.taps, nil
}
