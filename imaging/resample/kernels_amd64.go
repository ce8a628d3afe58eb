//go:build amd64 && !purego

package resample

import "golang.org/x/sys/cpu"

// haveAsm reports whether the AVX2 kernels are used. It is set once from
// the CPU features and never changes.
var haveAsm = cpu.X86.HasAVX2

// hpassAVX2 filters outputs [0, n) of a row; each reads taps source pixels
// from src + 3·lo[x] with weights w[x·taps:], 4 bytes per pixel (the fourth
// byte is ignored), so the last source pixel of the row must not be read.
//
//go:noescape
func hpassAVX2(dst *uint8, src *uint8, lo *int32, w *int32, n int, taps int)

// hpassMADD filters outputs [0, 2·pairs) of a row from the split form of
// the table (w16, groups); every output must be below hSafe16.
//
//go:noescape
func hpassMADD(dst *uint8, src *uint8, lo *int32, w *int16, pairs int, groups int)

// hpassBlocks filters blocks of 8 outputs from the block form; dst points
// at the first block's output.
//
//go:noescape
func hpassBlocks(dst *uint8, src *uint8, b0 *int32, nj *int32, w *int32, blocks int)

// hpassBlocks2 filters blocks of the stride-2 block form from a split
// row; dst points at the first block's output.
//
//go:noescape
func hpassBlocks2(dst *uint8, split *uint8, off0 *int32, off1 *int32, nj *int32, w *int32, blocks int)

// splitRowAVX2 splits groups·16 pixels of src by parity into even and
// odd, 24 bytes per group each.
//
//go:noescape
func splitRowAVX2(even *uint8, odd *uint8, src *uint8, groups int)

// vrowAVX2 computes samples [0, n) of a vertical output row, n a multiple
// of 32, from len = taps rows.
//
//go:noescape
func vrowAVX2(dst *uint8, n int, rows *[]uint8, taps int, w *int32)

// hpass filters one row horizontally (see hpassGo): the block kernel where
// the table has a block form, the split-form kernel elsewhere where its
// loads stay inside the row, then the one-pixel kernel, then Go. scratch
// holds t.scratchLen() bytes.
func hpass(dst, src []uint8, t *table, scratch []uint8) {
	if !haveAsm {
		hpassGo(dst, src, t, 0, t.nOut)
		return
	}
	_ = dst[t.nOut*3-1]
	_ = src[t.nIn*3-1]
	if b := t.blk; b != nil {
		x0, x1 := 8*b.first, 8*b.end
		hpassSplit(dst, src, t, 0, x0)
		if b.stride == 2 {
			split := scratch[:3*t.nIn]
			splitRow(split, src, t.nIn)
			hpassBlocks2(&dst[3*x0], &split[0], &b.off0[0], &b.off1[0], &b.nj[0], &b.w[0], b.end-b.first)
		} else {
			hpassBlocks(&dst[3*x0], &src[0], &b.b0[0], &b.nj[0], &b.w[0], b.end-b.first)
		}
		hpassSplit(dst, src, t, x1, t.nOut)
		return
	}
	hpassSplit(dst, src, t, 0, t.nOut)
}

// splitRow is splitRowGo: whole groups of 16 pixels in assembly, the
// rest in Go.
func splitRow(dst, src []uint8, n int) {
	dst, src = dst[:3*n], src[:3*n]
	g := n / 16
	if g > 0 {
		splitRowAVX2(&dst[0], &dst[3*((n+1)/2)], &src[0], g)
	}
	splitRowGo(dst, src, n, 16*g)
}

// hpassSplit filters outputs [x0, x1) without the block form.
func hpassSplit(dst, src []uint8, t *table, x0, x1 int) {
	if x0 >= x1 {
		return
	}
	if p := (min(x1, t.hSafe16) - x0) / 2; p > 0 {
		hpassMADD(&dst[3*x0], &src[0], &t.fixLo[x0], &t.w16[x0*t.groups*8], p, t.groups)
		x0 += 2 * p
	}
	if n := min(x1, t.hSafe) - x0; n > 0 {
		hpassAVX2(&dst[3*x0], &src[0], &t.fixLo[x0], &t.fixW[x0*t.fixN], n, t.fixN)
		x0 += n
	}
	hpassGo(dst, src, t, x0, x1)
}

// vrow combines rows vertically (see vrowGo).
func vrow(dst []uint8, rows [][]uint8, w []int32, acc []int32) {
	n := len(dst) &^ 31
	if !haveAsm || n == 0 {
		vrowGo(dst, rows, w, acc)
		return
	}
	for _, r := range rows {
		_ = r[len(dst)-1]
	}
	_ = w[len(rows)-1]
	vrowAVX2(&dst[0], n, &rows[0], len(rows), &w[0])
	vrowTail(dst, rows, w, n)
}
