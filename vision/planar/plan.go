package planar

import (
	"context"
	"fmt"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/norm"
)

// Options configure a processor built on this package: the goroutines of
// one ProcessImage call's normalize stage (and of the default resizer), the
// resizer, and the largest area a resize may produce (a plan over it fails
// with vision.ErrTooLarge). The zero value means the defaults.
type Options = vision.ProcessorOptions

// Engine is what a processor runs with: its table and resolved Options.
// It is immutable and safe for concurrent use.
type Engine struct {
	Norm       *norm.Table
	Workers    int
	PixelLimit int
	Resizer    vision.Resizer
}

// Settings is a processor configuration as Setup sees it.
type Settings interface {
	// Validate checks the configuration (a nil one included).
	Validate() error
	// NormParams are its rescale and normalize settings.
	NormParams() norm.Params
}

// Setup validates cfg and builds its engine with o.
func Setup(cfg Settings, o Options) (Engine, error) {
	if err := cfg.Validate(); err != nil {
		return Engine{}, err
	}
	return NewEngine(cfg.NormParams(), o)
}

// Build is a family's Load: load(dir), then build(cfg, o).
func Build[C, P any](dir string, o Options, load func(string) (C, error), build func(C, Options) (P, error)) (P, error) {
	cfg, err := load(dir)
	if err != nil {
		var zero P
		return zero, err
	}
	return build(cfg, o)
}

// NewEngine tabulates p and applies o's defaults. Negative Options are an
// error wrapping vision.ErrBadOptions.
func NewEngine(p norm.Params, o Options) (Engine, error) {
	o, err := o.WithDefaults()
	if err != nil {
		return Engine{}, fmt.Errorf("planar: %w", err)
	}
	return Engine{Norm: norm.New(p), Workers: o.Workers, PixelLimit: o.PixelLimit, Resizer: o.Resizer}, nil
}

// Write writes views with the engine's table and workers (see Write).
func (e *Engine) Write(ctx context.Context, dst []byte, views []View, dt tensor.DType) error {
	return Write(ctx, dst, views, e.Norm, dt, e.Workers)
}

// Fits reports whether a w×h resize is within the pixel limit.
func (e *Engine) Fits(w, h int) bool { return float64(w)*float64(h) <= float64(e.PixelLimit) }

// FloorDiv is Python's a // b for b > 0 (rounding toward −∞).
func FloorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// CheckPlan verifies ProcessImage's arguments (vision.CheckProcess) and
// that plan is the one proc makes for the image's size.
func CheckPlan(proc vision.Processor, img *imaging.RGB, plan vision.Plan, dt tensor.DType, dst []byte) error {
	if err := vision.CheckProcess(img, plan, dt, dst); err != nil {
		return err
	}
	want, err := proc.PlanImage(img.Width, img.Height, vision.Overrides{})
	if err != nil {
		return err
	}
	if want != plan {
		return fmt.Errorf("plan %+v is inconsistent (want %+v): %w", plan, want, vision.ErrBadInput)
	}
	return nil
}
