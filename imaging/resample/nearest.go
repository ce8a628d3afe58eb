package resample

import (
	"context"

	"github.com/mmgate/mmgate/imaging"
)

// nearestIndex returns, for each of nOut output samples, the source index
// Pillow's ImagingScaleAffine picks: the position starts at step/2 and is
// accumulated by step = nIn/nOut per sample (not recomputed as (i+0.5)·step,
// which rounds differently), then truncated. -1 marks a position outside
// [0, nIn), which Pillow leaves filled with 0.
func nearestIndex(nIn, nOut int) []int {
	step := float64(nIn) / float64(nOut)
	pos := 0 + float64(step*0.5)
	idx := make([]int, nOut)
	for i := range idx {
		k := -1
		if pos >= 0 {
			k = int(pos)
		}
		if k >= nIn {
			k = -1
		}
		idx[i] = k
		pos += step
	}
	return idx
}

func (r *Resizer) nearest(ctx context.Context, dst, src *imaging.RGB) error {
	xs := nearestIndex(src.Width, dst.Width)
	ys := nearestIndex(src.Height, dst.Height)
	return r.bands(ctx, dst, func(ctx context.Context, y0, y1 int) error {
		for y := y0; y < y1; y++ {
			if (y-y0)%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			out := dst.Row(y)
			if ys[y] < 0 {
				clear(out)
				continue
			}
			in := src.Row(ys[y])
			for x, sx := range xs {
				d := out[x*3 : x*3+3 : x*3+3]
				if sx < 0 {
					d[0], d[1], d[2] = 0, 0, 0
					continue
				}
				s := in[sx*3 : sx*3+3 : sx*3+3]
				d[0], d[1], d[2] = s[0], s[1], s[2]
			}
		}
		return nil
	})
}
