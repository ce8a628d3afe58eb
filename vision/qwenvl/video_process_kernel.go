package qwenvl

import (
	"encoding/binary"

	"github.com/mmgate/mmgate/imaging"
)

// The temporal patchify of one group of tau resized frames (the closed form
// of docs/preprocessing.md with T = tau): row r = ((bh·(gw/m) + bw)·m + mh)·m + mw, column
// k = ((c·tau + ti)·p + py)·p + px holds channel c of pixel
// ((bh·m+mh)·p + py, (bw·m+mw)·p + px) of frame ti. A video's rows are its
// groups' rows in time order, so each group fills its own contiguous part of
// the output. The kernels walk the output in order.

// patchifyGroup32 writes one group's rows with 4-byte elements (float32
// bits from lut).
func patchifyGroup32(dst []byte, frames []*imaging.RGB, l layout, lut *[3][256]uint32) {
	p, m, tau := l.p, l.m, l.tau
	pp := p * p
	plane := pp * 4
	rowBytes := 3 * tau * plane
	lr, lg, lb := &lut[0], &lut[1], &lut[2]
	off := 0
	for bh := 0; bh < l.gh/m; bh++ {
		for bw := 0; bw < l.gw/m; bw++ {
			for mh := 0; mh < m; mh++ {
				y0 := (bh*m + mh) * p
				for mw := 0; mw < m; mw++ {
					x0 := (bw*m + mw) * p * 3
					row := dst[off : off+rowBytes : off+rowBytes]
					for ti, f := range frames {
						stride := f.Width * 3
						r := row[ti*plane : ti*plane+plane : ti*plane+plane]
						g := row[(tau+ti)*plane : (tau+ti)*plane+plane : (tau+ti)*plane+plane]
						b := row[(2*tau+ti)*plane : (2*tau+ti)*plane+plane : (2*tau+ti)*plane+plane]
						k := 0
						for py := 0; py < p; py++ {
							s := f.Pix[(y0+py)*stride+x0:]
							s = s[: 3*p : 3*p]
							for i := 0; i+2 < len(s); i += 3 {
								binary.LittleEndian.PutUint32(r[k:k+4], lr[s[i]])
								binary.LittleEndian.PutUint32(g[k:k+4], lg[s[i+1]])
								binary.LittleEndian.PutUint32(b[k:k+4], lb[s[i+2]])
								k += 4
							}
						}
					}
					off += rowBytes
				}
			}
		}
	}
}

// patchifyGroup16 is patchifyGroup32 for 2-byte elements (bfloat16 or
// float16 bits).
func patchifyGroup16(dst []byte, frames []*imaging.RGB, l layout, lut *[3][256]uint16) {
	p, m, tau := l.p, l.m, l.tau
	pp := p * p
	plane := pp * 2
	rowBytes := 3 * tau * plane
	lr, lg, lb := &lut[0], &lut[1], &lut[2]
	off := 0
	for bh := 0; bh < l.gh/m; bh++ {
		for bw := 0; bw < l.gw/m; bw++ {
			for mh := 0; mh < m; mh++ {
				y0 := (bh*m + mh) * p
				for mw := 0; mw < m; mw++ {
					x0 := (bw*m + mw) * p * 3
					row := dst[off : off+rowBytes : off+rowBytes]
					for ti, f := range frames {
						stride := f.Width * 3
						r := row[ti*plane : ti*plane+plane : ti*plane+plane]
						g := row[(tau+ti)*plane : (tau+ti)*plane+plane : (tau+ti)*plane+plane]
						b := row[(2*tau+ti)*plane : (2*tau+ti)*plane+plane : (2*tau+ti)*plane+plane]
						k := 0
						for py := 0; py < p; py++ {
							s := f.Pix[(y0+py)*stride+x0:]
							s = s[: 3*p : 3*p]
							for i := 0; i+2 < len(s); i += 3 {
								binary.LittleEndian.PutUint16(r[k:k+2], lr[s[i]])
								binary.LittleEndian.PutUint16(g[k:k+2], lg[s[i+1]])
								binary.LittleEndian.PutUint16(b[k:k+2], lb[s[i+2]])
								k += 2
							}
						}
					}
					off += rowBytes
				}
			}
		}
	}
}
