package vision

import (
	"cmp"
	"context"
	"fmt"
	"runtime"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
)

// Resizer resizes RGB images with a Pillow filter; *resample.Resizer
// implements it. Processors take one so that a program can share a resizer
// or wrap it (for example to give memory back after large images).
type Resizer interface {
	ResizeInto(ctx context.Context, dst, src *imaging.RGB, f resample.Filter) error
}

// RowResizer is a Resizer that also resizes an image whose rows are still
// arriving (resample.Resizer.ResizeRows); *resample.Resizer implements it.
// A processor streams only through a Resizer that has these methods.
type RowResizer interface {
	Resizer
	Streams(srcW, srcH, dstW, dstH int, f resample.Filter) bool
	ResizeRows(ctx context.Context, src resample.RowReader, srcW, srcH int, band *imaging.RGB, dstH int, f resample.Filter, emit func(y0, n int) error) error
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

// WithDefaults returns o with every default applied: Workers GOMAXPROCS
// when 0, PixelLimit DefaultPixelLimit when 0, Resizer a resample.Resizer
// with o.Workers when nil. A negative Workers or PixelLimit is an error
// wrapping ErrBadOptions.
func (o ProcessorOptions) WithDefaults() (ProcessorOptions, error) {
	if o.Workers < 0 || o.PixelLimit < 0 {
		return o, fmt.Errorf("vision: workers %d, pixel limit %d: %w", o.Workers, o.PixelLimit, ErrBadOptions)
	}
	if o.Resizer == nil {
		r, err := resample.New(resample.Options{Workers: o.Workers})
		if err != nil {
			return o, fmt.Errorf("vision: resizer: %w", err)
		}
		o.Resizer = r
	}
	o.Workers = cmp.Or(o.Workers, runtime.GOMAXPROCS(0))
	o.PixelLimit = cmp.Or(o.PixelLimit, DefaultPixelLimit)
	return o, nil
}

// CheckProcess verifies the arguments every ProcessImage checks before the
// processor's own plan check: a valid image of the plan's source size, a
// float dtype and a destination of plan.Bytes(dt) bytes. Errors wrap
// ErrBadInput, or ErrUnsupported for the dtype.
func CheckProcess(img *imaging.RGB, plan Plan, dt tensor.DType, dst []byte) error {
	if img == nil {
		return fmt.Errorf("nil image: %w", ErrBadInput)
	}
	if err := img.Validate(); err != nil {
		return fmt.Errorf("%v: %w", err, ErrBadInput)
	}
	if img.Width != plan.SourceWidth || img.Height != plan.SourceHeight {
		return fmt.Errorf("image is %dx%d, plan is for %dx%d: %w",
			img.Width, img.Height, plan.SourceWidth, plan.SourceHeight, ErrBadInput)
	}
	if !dt.IsFloat() {
		return fmt.Errorf("dtype %v: %w", dt, ErrUnsupported)
	}
	if n := plan.Bytes(dt); len(dst) != n {
		return fmt.Errorf("dst is %d bytes, want %d: %w", len(dst), n, ErrBadInput)
	}
	return nil
}
