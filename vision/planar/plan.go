package planar

import (
	"fmt"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// NewResizer returns r, or a resample.Resizer with workers goroutines when
// r is nil.
func NewResizer(r Resizer, workers int) (Resizer, error) {
	if r != nil {
		return r, nil
	}
	return resample.New(resample.Options{Workers: workers})
}

// CheckPlan verifies ProcessImage's arguments: a float dtype, a valid
// image of the plan's source size, the plan proc makes for that size, and a
// destination of plan.Bytes(dt) bytes.
func CheckPlan(proc vision.Processor, img *imaging.RGB, plan vision.Plan, dt tensor.DType, dst []byte) error {
	if img == nil {
		return fmt.Errorf("nil image: %w", vision.ErrBadInput)
	}
	if !dt.IsFloat() {
		return fmt.Errorf("dtype %v: %w", dt, vision.ErrUnsupported)
	}
	if err := img.Validate(); err != nil {
		return fmt.Errorf("%v: %w", err, vision.ErrBadInput)
	}
	if img.Width != plan.SourceWidth || img.Height != plan.SourceHeight {
		return fmt.Errorf("image is %dx%d, plan is for %dx%d: %w",
			img.Width, img.Height, plan.SourceWidth, plan.SourceHeight, vision.ErrBadInput)
	}
	want, err := proc.PlanImage(img.Width, img.Height, vision.Overrides{})
	if err != nil {
		return err
	}
	if want != plan {
		return fmt.Errorf("plan %+v is inconsistent (want %+v): %w", plan, want, vision.ErrBadInput)
	}
	if n := plan.Bytes(dt); len(dst) != n {
		return fmt.Errorf("dst is %d bytes, want %d: %w", len(dst), n, vision.ErrBadInput)
	}
	return nil
}
