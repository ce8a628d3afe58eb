package vision

import (
	"context"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
)

// Resizer resizes RGB images with a Pillow filter; *resample.Resizer
// implements it. Processors take one so that a program can share a resizer
// or wrap it (for example to give memory back after large images).
type Resizer interface {
	ResizeInto(ctx context.Context, dst, src *imaging.RGB, f resample.Filter) error
}

// ProcessorOptions configure a family's processors. The zero value means the
// defaults.
type ProcessorOptions struct {
	// Workers bounds the goroutines of one ProcessImage call's
	// normalize+patchify stage. 0 means GOMAXPROCS; 1 runs serially. The
	// output does not depend on it.
	Workers int
	// Resizer performs the resize stage. nil means a resample.Resizer with
	// the same Workers.
	Resizer Resizer
	// PixelLimit is the largest resized width×height a plan may have
	// (a guard against huge per-request min_pixels); over it PlanImage
	// fails with ErrTooLarge. 0 means DefaultPixelLimit.
	PixelLimit int
}

// DefaultPixelLimit is the default ProcessorOptions.PixelLimit: 64 Mpx,
// above every published max_pixels.
const DefaultPixelLimit = 1 << 26

// MaxVideoFrames is the most sampled frames a video plan may hold; more
// (for example a request num_frames over it) is refused with ErrTooLarge.
const MaxVideoFrames = 768
