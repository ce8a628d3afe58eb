package resample

import (
	"context"

	"github.com/mmgate/mmgate/imaging"
)

// pass is one convolution resize: the tables and images of a call.
type pass struct {
	dst, src *imaging.RGB
	vt       *table // vertical table; always built, as Pillow does
	ht       *table // horizontal table, nil when the width is unchanged
	tall     bool   // vertical first (Pillow ≥ 12.2 tall-image rule)
}

// run computes output rows [y0, y1).
//
// Pillow's order is a horizontal pass over source rows [row_first,
// row_last) into a uint8 intermediate, then a vertical pass over it. Here
// the intermediate is a ring of vt.maxCnt rows per band: output row y needs
// intermediate rows [lo(y), lo(y)+cnt(y)), and both ends only grow with y,
// so each intermediate row is filtered once per band and overwritten once
// no later output row of the band can need it. The values are those of
// Pillow's full intermediate; only the storage differs.
func (p *pass) run(ctx context.Context, y0, y1 int) error {
	switch {
	case p.ht == nil:
		return p.vertical(ctx, y0, y1)
	case p.dst.Height == p.src.Height:
		return p.horizontal(ctx, y0, y1)
	case p.tall:
		return p.verticalFirst(ctx, y0, y1)
	}
	return p.horizontalFirst(ctx, y0, y1)
}

// at returns output y's first source sample, tap count and weights.
func (t *table) at(y int) (lo, n int, w []int32) {
	lo, n = int(t.lo[y]), int(t.cnt[y])
	return lo, n, t.w[y*t.taps:][:n:n]
}

// accScratch returns the int32 row the portable vertical loop needs beyond
// 8 taps, or nil.
func accScratch(t *table, width int) []int32 {
	if t.maxCnt > 8 {
		return make([]int32, width)
	}
	return nil
}

func (p *pass) vertical(ctx context.Context, y0, y1 int) error {
	vt, src, dst := p.vt, p.src, p.dst
	rows := make([][]uint8, vt.maxCnt)
	acc := accScratch(vt, dst.Stride())
	for y := y0; y < y1; y++ {
		if (y-y0)%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		lo, n, w := vt.at(y)
		for j := range n {
			rows[j] = src.Row(lo + j)
		}
		vrow(dst.Row(y), rows[:n], w, acc)
	}
	return nil
}

func (p *pass) horizontal(ctx context.Context, y0, y1 int) error {
	scratch := make([]uint8, p.ht.scratchLen())
	for y := y0; y < y1; y++ {
		if (y-y0)%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		hpass(p.dst.Row(y), p.src.Row(y), p.ht, scratch)
	}
	return nil
}

func (p *pass) horizontalFirst(ctx context.Context, y0, y1 int) error {
	vt, ht, src, dst := p.vt, p.ht, p.src, p.dst
	stride := dst.Stride()
	ringN := vt.maxCnt
	ring := make([]uint8, ringN*stride)
	rows := make([][]uint8, ringN)
	acc := accScratch(vt, stride)
	scratch := make([]uint8, ht.scratchLen())
	next := 0 // first source row not yet in the ring
	for y := y0; y < y1; y++ {
		if (y-y0)%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		lo, n, w := vt.at(y)
		next = max(next, lo)
		for ; next < lo+n; next++ {
			hpass(ring[(next%ringN)*stride:][:stride:stride], src.Row(next), ht, scratch)
		}
		for j := range n {
			rows[j] = ring[((lo+j)%ringN)*stride:][:stride:stride]
		}
		vrow(dst.Row(y), rows[:n], w, acc)
	}
	return nil
}

// verticalFirst is the tall-image order: a vertical-only resize to
// src.Width × dst.Height stored as uint8, then a horizontal-only resize.
// Each intermediate row is used by exactly one output row.
func (p *pass) verticalFirst(ctx context.Context, y0, y1 int) error {
	vt, ht, src, dst := p.vt, p.ht, p.src, p.dst
	tmp := make([]uint8, src.Stride())
	rows := make([][]uint8, vt.maxCnt)
	acc := accScratch(vt, src.Stride())
	scratch := make([]uint8, ht.scratchLen())
	for y := y0; y < y1; y++ {
		if (y-y0)%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		lo, n, w := vt.at(y)
		for j := range n {
			rows[j] = src.Row(lo + j)
		}
		vrow(tmp, rows[:n], w, acc)
		hpass(dst.Row(y), tmp, ht, scratch)
	}
	return nil
}
