package resample

// blockForm is a third layout of a horizontal table, for kernels that
// compute 8 consecutive output pixels (24 samples) at once. In block i
// (outputs x = 8i … 8i+7), lane k of tap j reads source pixel
// b0 + stride·k + j, and each lane carries its own weight: the output's
// fixed-count weight for that pixel, or 0 outside its window. An output's
// sum is thus unchanged. J (taps of the block) is the smallest count
// covering every lane's window.
//
// With stride 1 the 24 samples of tap j are the contiguous bytes
// src[3(b0+j) : 3(b0+j)+24]. With stride 2 — a downscale near 2, where
// stride 1 would need about twice the taps — the kernel reads a split
// copy of the row (splitRow: the even pixels, then the odd ones), in
// which the pixels b0+j, b0+j+2, …, b0+j+14 are again 24 contiguous
// bytes, at off[j%2] + 3·(j/2).
//
// The kernels take taps in pairs (j, j+1), multiplying int16 pixel pairs
// by int16 weight pairs (VPMADDWD), so a weight w is stored split as in
// the table's split form: w >> 12 and w & 4095. Pair p of a block holds
// 24 lane words of high halves, then 24 of low halves; lane word l carries
// tap 2p in its low 16 bits and tap 2p+1 in its high 16 bits (0 past J).
type blockForm struct {
	first, end int     // blocks [first, end) use this form
	stride     int     // 1 or 2
	b0, nj     []int32 // per block from first: first source pixel, taps J
	off0, off1 []int32 // stride 2, per block: split-row byte offsets of taps 0 and 1
	w          []int32 // per block, per tap pair: 24 high, then 24 low lane words
}

// buildBlocks fills t.blk when a block kernel is estimated to be cheaper
// than the split form, with the cheaper stride. The estimate prices a
// split group (four taps of eight outputs) at 4.5 block taps plus 5 per
// eight outputs, the low end of what AVX2 machines show (an Intel one
// about 4.5, an AMD Zen one about 7); so the stride-1 form wins near
// scale 1 and loses on strong downscales, whose J grows by 7 per unit of
// scale above 1. The
// stride-2 form's J grows by 7 per unit of scale above 2, and splitting a
// row costs about one block tap per 8 source pixels.
func (t *table) buildBlocks() {
	// The strides may cover different runs of blocks, so each is judged
	// by what it saves against the split form on its own run.
	var best *blockForm
	bestSaving := 0
	for _, stride := range []int{1, 2} {
		f, cost, alt := t.blocks(stride)
		if stride == 2 {
			cost += t.nIn
		}
		if f != nil && alt-cost > bestSaving {
			best, bestSaving = f, alt-cost
		}
	}
	if best != nil {
		best.weights(t)
	}
	t.blk = best
}

// blocks plans the form of one stride: the longest leading run of blocks
// whose reads stay inside the row, its cost and the split form's cost on
// the same outputs (in units of an eighth of a block tap); nil when no
// block qualifies.
func (t *table) blocks(stride int) (f *blockForm, cost, alt int) {
	nb := t.nOut / 8
	b0s := make([]int32, nb)
	njs := make([]int32, nb)
	valid := make([]bool, nb)
	for i := range nb {
		x := 8 * i
		b0 := int(t.fixLo[x])
		for k := 1; k < 8; k++ {
			b0 = min(b0, int(t.fixLo[x+k])-stride*k)
		}
		span := 0
		for k := range 8 {
			span = max(span, int(t.fixLo[x+k])-stride*k-b0)
		}
		j := span + t.fixN
		b0s[i], njs[i] = int32(b0), int32(j)
		valid[i] = b0 >= 0 && b0+7*stride+j <= t.nIn
	}
	first := 0
	for first < nb && !valid[first] {
		first++
	}
	end := first
	for end < nb && valid[end] {
		cost += 8 * int(njs[end])
		alt += 36*t.groups + 40
		end++
	}
	if end == first {
		return nil, 0, 0
	}
	return &blockForm{first: first, end: end, stride: stride, b0: b0s[first:end], nj: njs[first:end]}, cost, alt
}

// weights fills f.w from the table, and for stride 2 the tap offsets.
func (f *blockForm) weights(t *table) {
	total := 0
	for _, j := range f.nj {
		total += (int(j) + 1) / 2
	}
	f.w = make([]int32, total*48)
	if f.stride == 2 {
		f.off0 = make([]int32, len(f.b0))
		f.off1 = make([]int32, len(f.b0))
		for i, b0 := range f.b0 {
			f.off0[i] = int32(splitOffset(int(b0), t.nIn))
			f.off1[i] = int32(splitOffset(int(b0)+1, t.nIn))
		}
	}
	at := 0
	for i := range f.end - f.first {
		x := 8 * (f.first + i)
		b0 := int(f.b0[i])
		for j := range int(f.nj[i]) {
			half := 16 * uint(j%2)
			for k := range 8 {
				m := b0 + f.stride*k + j - int(t.fixLo[x+k])
				if m >= 0 && m < t.fixN {
					w := t.fixW[(x+k)*t.fixN+m]
					hi, lo := uint32(uint16(w>>12))<<half, uint32(w&4095)<<half
					for c := range 3 {
						f.w[at+3*k+c] |= int32(hi)
						f.w[at+24+3*k+c] |= int32(lo)
					}
				}
			}
			if j%2 == 1 || j == int(f.nj[i])-1 {
				at += 48
			}
		}
	}
}

// blockWeight is the weight of tap j in lane l of the block whose pairs
// start at w.
func blockWeight(w []int32, j, l int) int32 {
	half := 16 * uint(j%2)
	hi := int16(uint32(w[48*(j/2)+l]) >> half)
	lo := uint16(uint32(w[48*(j/2)+24+l]) >> half)
	return int32(hi)<<12 + int32(lo)
}

// splitOffset is the byte offset of source pixel p in the split copy of
// a row of n pixels: the (n+1)/2 even pixels, then the odd ones.
func splitOffset(p, n int) int {
	if p%2 == 0 {
		return 3 * (p / 2)
	}
	return 3*((n+1)/2) + 3*(p/2)
}

// scratchLen is the scratch a horizontal pass of t needs: the split row
// of the stride-2 block form, else nothing.
func (t *table) scratchLen() int {
	if t != nil && t.blk != nil && t.blk.stride == 2 {
		return 3 * t.nIn
	}
	return 0
}

// splitRowGo writes pixels [from, n) of the n-pixel row src to dst split
// by parity: the even pixels, then the odd ones (see splitOffset).
func splitRowGo(dst, src []uint8, n, from int) {
	dst = dst[:3*n]
	src = src[:3*n]
	for p := from; p < n; p++ {
		o := splitOffset(p, n)
		dst[o], dst[o+1], dst[o+2] = src[3*p], src[3*p+1], src[3*p+2]
	}
}
