package planar

import (
	"context"
	"fmt"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// DefaultPixelLimit is the default Options.PixelLimit: 64 Mpx.
const DefaultPixelLimit = 1 << 26

// Options configure a processor built on this package. The zero value
// means the defaults.
type Options struct {
	// Workers bounds the goroutines of one ProcessImage call's normalize
	// stage (and of the default resizer). 0 means GOMAXPROCS; the output
	// does not depend on it.
	Workers int
	// Resizer performs the resizes. nil means a resample.Resizer with the
	// same Workers.
	Resizer Resizer
	// PixelLimit is the largest area a resize may produce; a plan over it
	// fails with vision.ErrTooLarge. 0 means DefaultPixelLimit.
	PixelLimit int
}

// Engine is what a processor runs with: its table and resolved Options.
// It is immutable and safe for concurrent use.
type Engine struct {
	Norm       *Norm
	Workers    int
	PixelLimit int
	Resizer    Resizer
}

// Settings is a processor configuration as Setup sees it.
type Settings interface {
	// Validate checks the configuration (a nil one included).
	Validate() error
	// NormParams are its rescale and normalize settings.
	NormParams() NormParams
}

// Setup validates cfg and builds its engine with o.
func Setup(cfg Settings, o Options) (Engine, error) {
	if err := cfg.Validate(); err != nil {
		return Engine{}, err
	}
	return NewEngine(cfg.NormParams(), o)
}

// LoadDir reads a model folder's Files and parses them; errors name the
// package and the folder.
func LoadDir[C any](pkg, dir string, parse func(Files) (C, error)) (C, error) {
	var zero C
	f, err := ReadFiles(dir)
	if err != nil {
		return zero, fmt.Errorf("%s: load %s: %w", pkg, dir, err)
	}
	c, err := parse(f)
	if err != nil {
		return zero, fmt.Errorf("load %s: %w", dir, err)
	}
	return c, nil
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
func NewEngine(p NormParams, o Options) (Engine, error) {
	if o.Workers < 0 || o.PixelLimit < 0 {
		return Engine{}, fmt.Errorf("planar: workers %d, pixel limit %d: %w", o.Workers, o.PixelLimit, vision.ErrBadOptions)
	}
	e := Engine{Norm: NewNorm(p), Workers: o.Workers, PixelLimit: o.PixelLimit, Resizer: o.Resizer}
	if e.PixelLimit == 0 {
		e.PixelLimit = DefaultPixelLimit
	}
	if e.Resizer == nil {
		r, err := resample.New(resample.Options{Workers: o.Workers})
		if err != nil {
			return Engine{}, fmt.Errorf("planar: resizer: %w", err)
		}
		e.Resizer = r
	}
	return e, nil
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
