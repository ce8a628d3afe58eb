//go:build !cgo || mmgate_purego

package media

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"io"

	"github.com/mmgate/mmgate/imaging"
)

// decodeJPEG is the pure-Go fallback: image/jpeg has a different IDCT,
// chroma upsampling and colour conversion than libjpeg-turbo, so its pixels
// are close to, but not, the reference's (Exact is false).
func decodeJPEG(in *info, data []byte, _ func(n int) ([]uint8, error)) (*Image, error) {
	if !jpegComplete(in, data) {
		return nil, truncated(FormatJPEG)
	}
	m, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		var ue jpeg.UnsupportedError
		switch {
		case errors.As(err, &ue):
			return nil, unsupportedFormat(FormatJPEG, "%v", err)
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return nil, truncated(FormatJPEG)
		}
		return nil, corrupt(FormatJPEG, "%v", err)
	}
	b := m.Bounds()
	if b.Dx() != in.w || b.Dy() != in.h {
		return nil, corrupt(FormatJPEG, "size %v differs from the header", b)
	}
	w, h := in.w, in.h
	img := &Image{SourceMode: "RGB", Exact: false}
	out := imaging.NewRGB(w, h)
	switch m := m.(type) {
	case *image.Gray:
		img.SourceMode = "L"
		for y := 0; y < h; y++ {
			src, dst := m.Pix[y*m.Stride:], out.Row(y)
			for x := 0; x < w; x++ {
				dst[3*x], dst[3*x+1], dst[3*x+2] = src[x], src[x], src[x]
			}
		}
	case *image.CMYK:
		img.SourceMode = "CMYK"
		for y := 0; y < h; y++ {
			src, dst := m.Pix[y*m.Stride:], out.Row(y)
			for x := 0; x < w; x++ {
				dst[3*x], dst[3*x+1], dst[3*x+2] = cmykToRGB(src[4*x], src[4*x+1], src[4*x+2], src[4*x+3])
			}
		}
	default:
		for y := 0; y < h; y++ {
			dst := out.Row(y)
			for x := 0; x < w; x++ {
				r, g, bb, _ := m.At(b.Min.X+x, b.Min.Y+y).RGBA()
				dst[3*x], dst[3*x+1], dst[3*x+2] = uint8(r>>8), uint8(g>>8), uint8(bb>>8)
			}
		}
	}
	img.RGB = out
	return img, nil
}

func jpegDecoderInfo() DecoderInfo {
	return DecoderInfo{Format: FormatJPEG, Library: "image/jpeg (not Pillow-exact)", Exact: false}
}
