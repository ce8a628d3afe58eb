package qwenvl

import (
	"context"
	"encoding/binary"

	"golang.org/x/sync/errgroup"
)

// layout is the patch geometry of one image: patch size p, merge size m,
// temporal patch size tau, and the patch grid gh×gw (both multiples of m).
type layout struct {
	p, m, tau int
	gh, gw    int
}

// cols is the length of one pixel_values row: 3·tau·p².
func (l layout) cols() int { return 3 * l.tau * l.p * l.p }

// blockRows is the number of pixel_values rows one merged block row
// (m patch rows of the image) produces.
func (l layout) blockRows() int { return l.gw * l.m }

// The closed form of docs/preprocessing.md ("Patchify, grid and
// placeholders") for one image (T = 1, padded to tau identical frames):
// output row r = ((bh·(gw/m) + bw)·m + mh)·m + mw holds the patch
// whose top-left pixel is ((bh·m+mh)·p, (bw·m+mw)·p); inside the row, column
// k = ((c·tau + ti)·p + py)·p + px holds channel c of pixel (py, px) of the
// patch, the same for every ti.
//
// The kernels below walk the output in order, one merged block row at a time,
// so dst is written sequentially and the m·p source rows being read stay in
// cache. Each pixel's three channels are read once and written to the three
// channel planes of the row; the tau−1 temporal copies are then copy()'d.

// patchify32 writes the rows of merged block rows [bh0, bh1) with 4-byte
// elements (float32 bits from lut). pix is the resized image, stride its row
// length in bytes.
func patchify32(dst []byte, pix []uint8, stride int, l layout, lut *[3][256]uint32, bh0, bh1 int) {
	p, m, tau := l.p, l.m, l.tau
	pp := p * p
	plane := tau * pp * 4 // bytes per channel in a row
	rowBytes := 3 * plane
	lr, lg, lb := &lut[0], &lut[1], &lut[2]
	off := bh0 * l.blockRows() * rowBytes
	for bh := bh0; bh < bh1; bh++ {
		for bw := 0; bw < l.gw/m; bw++ {
			for mh := 0; mh < m; mh++ {
				y0 := (bh*m + mh) * p
				for mw := 0; mw < m; mw++ {
					x0 := (bw*m + mw) * p * 3
					row := dst[off : off+rowBytes : off+rowBytes]
					r := row[0 : pp*4 : pp*4]
					g := row[plane : plane+pp*4 : plane+pp*4]
					b := row[2*plane : 2*plane+pp*4 : 2*plane+pp*4]
					k := 0
					for py := 0; py < p; py++ {
						s := pix[(y0+py)*stride+x0:]
						s = s[: 3*p : 3*p]
						for i := 0; i+2 < len(s); i += 3 {
							binary.LittleEndian.PutUint32(r[k:k+4], lr[s[i]])
							binary.LittleEndian.PutUint32(g[k:k+4], lg[s[i+1]])
							binary.LittleEndian.PutUint32(b[k:k+4], lb[s[i+2]])
							k += 4
						}
					}
					for c := 0; c < 3; c++ {
						first := row[c*plane : c*plane+pp*4]
						for ti := 1; ti < tau; ti++ {
							copy(row[c*plane+ti*pp*4:], first)
						}
					}
					off += rowBytes
				}
			}
		}
	}
}

// patchify16 is patchify32 for 2-byte elements (bfloat16 or float16 bits).
func patchify16(dst []byte, pix []uint8, stride int, l layout, lut *[3][256]uint16, bh0, bh1 int) {
	p, m, tau := l.p, l.m, l.tau
	pp := p * p
	plane := tau * pp * 2
	rowBytes := 3 * plane
	lr, lg, lb := &lut[0], &lut[1], &lut[2]
	off := bh0 * l.blockRows() * rowBytes
	for bh := bh0; bh < bh1; bh++ {
		for bw := 0; bw < l.gw/m; bw++ {
			for mh := 0; mh < m; mh++ {
				y0 := (bh*m + mh) * p
				for mw := 0; mw < m; mw++ {
					x0 := (bw*m + mw) * p * 3
					row := dst[off : off+rowBytes : off+rowBytes]
					r := row[0 : pp*2 : pp*2]
					g := row[plane : plane+pp*2 : plane+pp*2]
					b := row[2*plane : 2*plane+pp*2 : 2*plane+pp*2]
					k := 0
					for py := 0; py < p; py++ {
						s := pix[(y0+py)*stride+x0:]
						s = s[: 3*p : 3*p]
						for i := 0; i+2 < len(s); i += 3 {
							binary.LittleEndian.PutUint16(r[k:k+2], lr[s[i]])
							binary.LittleEndian.PutUint16(g[k:k+2], lg[s[i+1]])
							binary.LittleEndian.PutUint16(b[k:k+2], lb[s[i+2]])
							k += 2
						}
					}
					for c := 0; c < 3; c++ {
						first := row[c*plane : c*plane+pp*2]
						for ti := 1; ti < tau; ti++ {
							copy(row[c*plane+ti*pp*2:], first)
						}
					}
					off += rowBytes
				}
			}
		}
	}
}

// patchifyParallel runs kernel over the merged block rows split into at most
// workers contiguous bands. Every band writes a disjoint part of dst, so the
// result does not depend on workers. The context is checked between blocks
// of rows.
func patchifyParallel(ctx context.Context, workers int, l layout, kernel func(bh0, bh1 int)) error {
	n := l.gh / l.m
	if workers > n {
		workers = n
	}
	// Chunks of a few block rows let cancellation be noticed quickly.
	const chunk = 4
	if workers <= 1 {
		for bh := 0; bh < n; bh += chunk {
			if err := ctx.Err(); err != nil {
				return err
			}
			kernel(bh, min(bh+chunk, n))
		}
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	for w := range workers {
		b0, b1 := w*n/workers, (w+1)*n/workers
		g.Go(func() error {
			for bh := b0; bh < b1; bh += chunk {
				if err := gctx.Err(); err != nil {
					return err
				}
				kernel(bh, min(bh+chunk, b1))
			}
			return nil
		})
	}
	return g.Wait()
}
