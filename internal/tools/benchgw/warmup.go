package benchgw

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
)

// Warm-up before the clock starts: a few text requests over the probe's
// connection and one image request carrying a small generated JPEG that is
// none of the measured files (so the gateway's tensor cache cannot serve a
// measured request). A cold gateway's first requests pay one-time costs
// (connections, first use of the decoder, the worker's first stream) that
// say nothing about steady-state isolation.
const (
	warmTextRequests = 3
	warmImageSide    = 64
)

// warmImageBody is a chat request like the measured ones with a generated
// JPEG instead of an image file.
func warmImageBody(o Options) ([]byte, error) {
	img := image.NewRGBA(image.Rect(0, 0, warmImageSide, warmImageSide))
	for y := range warmImageSide {
		for x := range warmImageSide {
			img.Set(x, y, color.RGBA{uint8(4 * x), uint8(4 * y), 128, 255})
		}
	}
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, img, &jpeg.Options{Quality: 90}); err != nil {
		return nil, fmt.Errorf("warm-up image: %w", err)
	}
	return imageBody(o, DataURL("image/jpeg", jb.Bytes()))
}

// warmText and warmImage send the warm-up requests one after another (the
// text ones from whichever process sends the probes). Their results are not
// measured; a failure shows up again in the measured run.
func (r *Runner) warmText(ctx context.Context) {
	for range warmTextRequests {
		r.do(ctx, r.probe, true)
	}
}

func (r *Runner) warmImage(ctx context.Context) {
	if r.warmImageBody != nil {
		r.do(ctx, r.warmImageBody, false)
	}
}
