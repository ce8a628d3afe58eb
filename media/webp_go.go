//go:build !cgo || mmgate_purego

package media

import (
	"bytes"
	"errors"
	"image"
	"io"

	"golang.org/x/image/webp"
)

// decodeWebP is the pure-Go fallback (golang.org/x/image/webp). Lossless
// pixels are exact; lossy ones are not (Exact false). Animations are not
// supported.
func decodeWebP(in *info, data []byte) (*raster, bool, error) {
	if in.webpAnim {
		return nil, false, unsupportedFormat(FormatWebP, "animation needs the libwebp build")
	}
	exact := !in.webpLossy
	m, err := webp.Decode(bytes.NewReader(data))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, exact, truncated(FormatWebP)
		}
		return nil, exact, corrupt(FormatWebP, "%v", err)
	}
	b := m.Bounds()
	if b.Dx() != in.w || b.Dy() != in.h {
		return nil, exact, corrupt(FormatWebP, "size %v differs from the header", b)
	}
	r := newRaster("RGB", layoutRGB, in.w, in.h)
	if in.webpAlpha {
		r = newRaster("RGBA", layoutRGBA, in.w, in.h)
	}
	n := layoutBytes[r.layout]
	for y := 0; y < in.h; y++ {
		row := r.pix[y*in.w*n : (y+1)*in.w*n]
		for x := 0; x < in.w; x++ {
			var c [4]uint8
			switch m := m.(type) {
			case *image.NRGBA:
				i := m.PixOffset(b.Min.X+x, b.Min.Y+y)
				c = [4]uint8{m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3]}
			case *image.NYCbCrA:
				cc := m.NYCbCrAAt(b.Min.X+x, b.Min.Y+y)
				rr, gg, bb, _ := cc.YCbCr.RGBA()
				c = [4]uint8{uint8(rr >> 8), uint8(gg >> 8), uint8(bb >> 8), cc.A}
			default:
				rr, gg, bb, aa := m.At(b.Min.X+x, b.Min.Y+y).RGBA()
				c = [4]uint8{uint8(rr >> 8), uint8(gg >> 8), uint8(bb >> 8), uint8(aa >> 8)}
			}
			copy(row[x*n:x*n+n], c[:n])
		}
	}
	return r, exact, nil
}

func webpDecoderInfo() DecoderInfo {
	return DecoderInfo{Format: FormatWebP, Library: "golang.org/x/image/webp (lossless exact, lossy not)", Exact: false}
}
