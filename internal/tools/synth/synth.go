// Package synth makes the synthetic pictures the load and benchmark tools
// send: gradients and bars that a seed varies, so that every seed gives
// different pixels (and so a different content hash) at any size. Its
// functions are pure.
package synth

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
)

// Image is a w×h gradient-and-bars picture that seed varies.
func Image(w, h, seed int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			m.Set(x, y, color.NRGBA{uint8(x*7 + seed*31), uint8(y*5 + seed*11), uint8((x ^ y) + seed*3), 255})
		}
	}
	return m
}

// JPEG is Image encoded as a JPEG of quality 85.
func JPEG(w, h, seed int) ([]byte, error) {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, Image(w, h, seed), &jpeg.Options{Quality: 85}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
