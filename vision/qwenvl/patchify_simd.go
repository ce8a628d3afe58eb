package qwenvl

import (
	"unsafe"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/vision/norm"
)

// This file answers: which normalize + patchify kernel runs? The portable
// kernels (patchify.go, video_process_kernel.go) are the reference; where the
// CPU has a vector kernel (patchify_amd64.s: AVX2 table gathers, or for
// float32 values of the affine form the same arithmetic as the table's;
// patch16_amd64.s: AVX-512 byte permutes for 2-byte entries) and the
// geometry suits it, the functions below walk the same output rows and
// hand each patch to it. Both write the same bytes (patchify_simd_test.go
// checks them bit for bit on random tables, parameters, images and
// layouts).

// minSIMDPatch is the smallest patch side the vector kernel takes: it
// converts eight pixels of a patch row at a time, the last eight of a row
// overlapping the ones before when the side is not a multiple of eight.
const minSIMDPatch = 8

// imageFits reports whether an image of pix (rows of stride bytes) holds
// every source pixel of layout l, so that the vector kernel, which is not
// bounds checked, reads inside it.
func imageFits(pix []uint8, stride int, l layout) bool {
	w, h := l.gw*l.p, l.gh*l.p
	return stride >= 3*w && h > 0 && len(pix) >= (h-1)*stride+3*w
}

// simdLayout reports whether l suits the vector kernel at all.
func simdLayout(l layout) bool {
	return haveSIMD() && l.p >= minSIMDPatch && l.m > 0 && l.tau > 0 && l.gh%l.m == 0 && l.gw%l.m == 0
}

// eachPatch calls fn for the patches of merged block rows [bh0, bh1) in
// output row order, with the byte offset of the patch's row in the output
// (rows of rowBytes) and its top-left source pixel (row y0, byte x0). Row
// r = ((bh·(gw/m) + bw)·m + mh)·m + mw holds the patch whose top-left
// pixel is ((bh·m+mh)·p, (bw·m+mw)·p).
func eachPatch(l layout, rowBytes, bh0, bh1 int, fn func(off, y0, x0 int)) {
	p, m := l.p, l.m
	perBlockRow := l.blockRows()
	for r := bh0 * perBlockRow; r < bh1*perBlockRow; r++ {
		mw, mh := r%m, r/m%m
		bw, bh := r/(m*m)%(l.gw/m), r/perBlockRow
		fn(r*rowBytes, (bh*m+mh)*p, (bw*m+mw)*p*3)
	}
}

// streamScratch bounds the patch (or temporal group of patches) the
// streaming path assembles on the stack before writing it out.
const streamScratch = 8 << 10

// streams reports whether the vector kernels should write a tensor of n
// bytes with streaming stores: when it is larger than the last-level
// cache, which it would only fill with lines evicted before anything
// reads them back (the reader is a later stage, or a worker reading
// shared memory), and whose every store would first read its line from
// memory. An AMD EPYC machine of the class (8 MiB L3) writes 7.5 GB/s
// with ordinary stores and 21-27 GB/s with streaming ones.
func streams(n int) bool {
	llc := lastLevelCache()
	return llc > 0 && n > llc
}

// canStream reports whether blocks of block bytes at multiples of block
// from the start of dst may take the streaming path.
func canStream(dst []byte, block int) bool {
	return block <= streamScratch && block%16 == 0 && len(dst) > 0 && uintptr(unsafe.Pointer(&dst[0]))%16 == 0
}

// eachBlockOut is eachPatch with blocks of block bytes (a patch, or a
// temporal group's patches): fill writes the block whose top-left source
// pixel is (row y0, byte x0) into out, which is the block's bytes of dst,
// or with stream, where canStream allows it, a stack scratch that is then
// copied to dst with streaming stores.
func eachBlockOut(dst []byte, l layout, block, bh0, bh1 int, stream bool, fill func(out []byte, y0, x0 int)) {
	if !stream || !canStream(dst, block) {
		eachPatch(l, block, bh0, bh1, func(off, y0, x0 int) { fill(dst[off:off+block], y0, x0) })
		return
	}
	var buf [streamScratch]byte
	eachPatch(l, block, bh0, bh1, func(off, y0, x0 int) {
		fill(buf[:block], y0, x0)
		streamCopy(&dst[off], &buf[0], block)
	})
	storeFence()
}

// imageSIMD reports whether the image kernels may write block rows
// [bh0, bh1) of layout l, with elements of es bytes, from pix into dst.
func imageSIMD(dst []byte, pix []uint8, stride int, l layout, es, bh0, bh1 int) bool {
	return simdLayout(l) && imageFits(pix, stride, l) && 0 <= bh0 && bh0 <= bh1 && bh1 <= l.gh/l.m &&
		len(dst) >= bh1*l.blockRows()*l.cols()*es
}

// affine holds the constants of norm.Table.Affine in the layout
// affinePatch reads: the rescale factor, then eight copies of each
// channel's mean and of its std.
type affine struct {
	rescale float64
	mean    [3][8]float32
	std     [3][8]float32
}

// affineOf returns t's constants, or nil when its values are not of the
// affine form. Computing the values costs less than gathering them from
// the table on CPUs with slow gathers (AMD Zen), and no more elsewhere.
func affineOf(t *norm.Table) *affine {
	rescale, mean, std, ok := t.Affine()
	if !ok {
		return nil
	}
	k := &affine{rescale: rescale}
	for c := range 3 {
		for i := range 8 {
			k.mean[c][i], k.std[c][i] = mean[c], std[c]
		}
	}
	return k
}

// patch32 hands one patch to the float32 vector kernel: affinePatch when
// aff is set, else lutPatch.
func patch32(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, lut *[3][256]uint32, aff *affine) {
	if aff != nil {
		affinePatch(dst, src, stride, p, chanStride, copies, copyStride, aff)
		return
	}
	lutPatch(dst, src, stride, p, chanStride, copies, copyStride, lut, 4)
}

// patchify32Auto is patchify32, with the vector kernel where it applies;
// aff, when set, holds the constants lut's values follow.
// With stream (see streams) each patch is assembled on the stack and
// written out with streaming stores.
func patchify32Auto(dst []byte, pix []uint8, stride int, l layout, lut *[3][256]uint32, aff *affine, stream bool, bh0, bh1 int) {
	if !imageSIMD(dst, pix, stride, l, 4, bh0, bh1) || bh0 == bh1 {
		patchify32(dst, pix, stride, l, lut, bh0, bh1)
		return
	}
	pp := l.p * l.p
	plane := l.tau * pp * 4
	eachBlockOut(dst, l, 3*plane, bh0, bh1, stream, func(out []byte, y0, x0 int) {
		patch32(&out[0], &pix[y0*stride+x0], stride, l.p, plane, l.tau, pp*4, lut, aff)
	})
}

// patchify16Auto is patchify16, with the vector kernel k where it
// applies (k.lut for the portable one); stream as for patchify32Auto.
func patchify16Auto(dst []byte, pix []uint8, stride int, l layout, k kernel16, stream bool, bh0, bh1 int) {
	if !imageSIMD(dst, pix, stride, l, 2, bh0, bh1) || bh0 == bh1 {
		patchify16(dst, pix, stride, l, k.lut, bh0, bh1)
		return
	}
	pp := l.p * l.p
	plane := l.tau * pp * 2
	eachBlockOut(dst, l, 3*plane, bh0, bh1, stream, func(out []byte, y0, x0 int) {
		k.patch(&out[0], &pix[y0*stride+x0], stride, l.p, plane, l.tau, pp*2)
	})
}

// maxVBMIPatch is the largest patch side vbmiPatch16 takes: two rows of
// 2-byte entries fill one 64-byte register.
const maxVBMIPatch = 16

// vbmiFits reports whether vbmiPatch16 runs on this CPU for layout l.
func vbmiFits(l layout) bool { return haveVBMI() && l.p <= maxVBMIPatch }

// tables16 is what vbmiPatch16 reads for one 16-bit table and patch side
// p (patch16_amd64.s names the offsets of its fields): the table split
// into its low and high bytes, which byte permutes can look up; per
// channel the VPERMB indices that put a source row's samples of that
// channel in their places of a 64-byte register, which holds four patch
// rows; per row of four the places it fills (a byte mask); and the masks
// of a row's source bytes (3p), of one output row (p words) and of two
// (2p words).
//
// The places follow the unpacking of the looked-up bytes into words:
// unpacking the low halves of the register's 16-byte lanes gives words
// 0-31 from places 16·(w/8) + w%8, unpacking the high halves words 0-31
// from places 16·(w/8) + 8 + w%8. Words 0 to 2p-1 of the first unpack
// are rows 0 and 1 in output order, those of the second rows 2 and 3.
type tables16 struct {
	lo, hi         [3][256]byte
	idx            [3][64]byte
	rows           [4]uint64
	load, one, two uint64
}

// newTables16 builds vbmiPatch16's tables for lut and patch side p
// (1 ≤ p ≤ maxVBMIPatch).
func newTables16(lut *[3][256]uint16, p int) *tables16 {
	t := new(tables16)
	for c := range lut {
		for v, x := range lut[c] {
			t.lo[c][v], t.hi[c][v] = byte(x), byte(x>>8)
		}
	}
	for place := range 64 {
		half, w := place%16/8, place/16*8+place%8
		if w >= 2*p {
			continue
		}
		row, px := 2*half+w/p, w%p
		for c := range 3 {
			t.idx[c][place] = byte(3*px + c)
		}
		t.rows[row] |= 1 << place
	}
	t.load, t.one, t.two = 1<<(3*p)-1, 1<<p-1, 1<<(2*p)-1
	return t
}

// kernel16 is one 16-bit table ready for the vector kernels: lut itself
// (for the portable kernel), and for one of the vector kernels either
// vbmiPatch16's tables t or the table widened for lutPatch. It is built
// once per image or video, not per band or group.
type kernel16 struct {
	lut  *[3][256]uint16
	t    *tables16
	wide *[3][256]uint32
}

// kernel16For is lut's kernel for layout l: vbmiPatch16 where it runs
// (vbmiFits), else the AVX2 gathers.
func kernel16For(lut *[3][256]uint16, l layout) kernel16 {
	return newKernel16(lut, l.p, vbmiFits(l))
}

// newKernel16 is lut's kernel for patch side p, with vbmiPatch16 when
// vbmi is set.
func newKernel16(lut *[3][256]uint16, p int, vbmi bool) kernel16 {
	if vbmi {
		return kernel16{lut: lut, t: newTables16(lut, p)}
	}
	wide := widen16(lut)
	return kernel16{lut: lut, wide: &wide}
}

// patch hands one patch to the vector kernel (the arguments of lutPatch).
func (k kernel16) patch(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int) {
	if k.t != nil {
		vbmiPatch16(dst, src, stride, p, chanStride, copies, copyStride, k.t)
		return
	}
	lutPatch(dst, src, stride, p, chanStride, copies, copyStride, k.wide, 2)
}

// groupSIMD reports whether the group kernels may write the rows of one
// temporal group of layout l, with elements of es bytes, from frames into
// dst. Each frame's rows are Width·3 bytes long, as in the portable kernel.
func groupSIMD(dst []byte, frames []*imaging.RGB, l layout, es int) bool {
	if !simdLayout(l) || len(frames) == 0 || len(frames) > l.tau || len(dst) < l.gh*l.gw*l.cols()*es {
		return false
	}
	for _, f := range frames {
		if f == nil || !imageFits(f.Pix, f.Width*3, l) {
			return false
		}
	}
	return true
}

// patchifyGroup32Auto is patchifyGroup32, with the vector kernel where it
// applies; aff and stream as for patchify32Auto.
func patchifyGroup32Auto(dst []byte, frames []*imaging.RGB, l layout, lut *[3][256]uint32, aff *affine, stream bool) {
	if !groupSIMD(dst, frames, l, 4) {
		patchifyGroup32(dst, frames, l, lut)
		return
	}
	plane := l.p * l.p * 4
	// Streaming writes whole blocks, so only when every frame fills its
	// part of them.
	stream = stream && len(frames) == l.tau
	eachBlockOut(dst, l, 3*l.tau*plane, 0, l.gh/l.m, stream, func(out []byte, y0, x0 int) {
		for ti, f := range frames {
			stride := f.Width * 3
			patch32(&out[ti*plane], &f.Pix[y0*stride+x0], stride, l.p, l.tau*plane, 1, 0, lut, aff)
		}
	})
}

// patchifyGroup16Auto is patchifyGroup16, with the vector kernel k where
// it applies.
func patchifyGroup16Auto(dst []byte, frames []*imaging.RGB, l layout, k kernel16) {
	if !groupSIMD(dst, frames, l, 2) {
		patchifyGroup16(dst, frames, l, k.lut)
		return
	}
	plane := l.p * l.p * 2
	eachPatch(l, 3*l.tau*plane, 0, l.gh/l.m, func(off, y0, x0 int) {
		for ti, f := range frames {
			stride := f.Width * 3
			k.patch(&dst[off+ti*plane], &f.Pix[y0*stride+x0], stride, l.p, l.tau*plane, 1, 0)
		}
	})
}

// widen16 copies a 16-bit table into 32-bit entries: the gathers load four
// bytes per entry, which from the 16-bit table would read past its end.
func widen16(lut *[3][256]uint16) (w [3][256]uint32) {
	for c := range lut {
		for v, x := range lut[c] {
			w[c][v] = uint32(x)
		}
	}
	return w
}
