package qwenvl

import (
	"context"
	"fmt"
	"time"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/norm"
)

// Resizer resizes RGB images; *resample.Resizer implements it.
type Resizer = vision.Resizer

// Options configure a Processor (vision.ProcessorOptions). The zero value
// means the defaults.
type Options = vision.ProcessorOptions

// DefaultPixelLimit is the default Options.PixelLimit: 64 Mpx, above every
// published max_pixels.
const DefaultPixelLimit = vision.DefaultPixelLimit

// Processor is the Qwen-VL image processor for one configuration. It
// implements vision.Processor and is safe for concurrent use.
type Processor struct {
	cfg     Config
	table   *norm.Table
	workers int
	limit   int
	resizer Resizer
	filter  resample.Filter
}

var _ vision.Processor = (*Processor)(nil)

// New builds a processor from a configuration (which it copies).
func New(cfg *Config, o Options) (*Processor, error) {
	if cfg == nil {
		return nil, fmt.Errorf("qwenvl: nil config: %w", vision.ErrBadOptions)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o, err := o.WithDefaults()
	if err != nil {
		return nil, fmt.Errorf("qwenvl: %w", err)
	}
	p := &Processor{cfg: *cfg, workers: o.Workers, limit: o.PixelLimit, resizer: o.Resizer, filter: resample.Filter(cfg.Resample)}
	if cfg.Video != nil {
		v := *cfg.Video
		p.cfg.Video = &v
	}
	p.table = norm.New(cfg.NormParams())
	return p, nil
}

// Load builds a processor from a preset name ("qwen2-vl", "qwen2.5-vl",
// "qwen3-vl") or a model folder (preprocessor_config.json, config.json and
// an optional video_preprocessor_config.json). A preset name wins over a
// folder of the same name. At most one Options may be given.
func Load(presetOrDir string, opts ...Options) (*Processor, error) {
	if len(opts) > 1 {
		return nil, fmt.Errorf("qwenvl: load: %d Options given: %w", len(opts), vision.ErrBadOptions)
	}
	cfg, err := resolveConfig(presetOrDir)
	if err != nil {
		return nil, err
	}
	var o Options
	if len(opts) == 1 {
		o = opts[0]
	}
	return New(cfg, o)
}

// ModelType implements vision.Processor.
func (p *Processor) ModelType() string { return p.cfg.ModelType }

// Config returns a copy of the processor's configuration.
func (p *Processor) Config() Config {
	c := p.cfg
	if c.Video != nil {
		v := *c.Video
		c.Video = &v
	}
	return c
}

// pixelBounds applies overrides to the configured min/max pixels.
func (p *Processor) pixelBounds(o vision.Overrides) (minPx, maxPx int, err error) {
	if err := o.Validate(); err != nil {
		return 0, 0, err
	}
	minPx, maxPx = p.cfg.MinPixels, p.cfg.MaxPixels
	if o.MinPixels > 0 {
		minPx = o.MinPixels
	}
	if o.MaxPixels > 0 {
		maxPx = o.MaxPixels
	}
	return minPx, maxPx, nil
}

// PlanImage implements vision.Processor: smart_resize, then the grid, token
// count and pixel_values shape of one image.
func (p *Processor) PlanImage(width, height int, o vision.Overrides) (vision.Plan, error) {
	minPx, maxPx, err := p.pixelBounds(o)
	if err != nil {
		return vision.Plan{}, err
	}
	factor := p.cfg.Factor()
	h, w := height, width
	if p.cfg.DoResize {
		h, w, err = SmartResize(height, width, factor, float64(minPx), float64(maxPx))
		if err != nil {
			return vision.Plan{}, err
		}
	} else {
		if width <= 0 || height <= 0 {
			return vision.Plan{}, fmt.Errorf("qwenvl: plan %dx%d: %w", width, height, vision.ErrTooSmall)
		}
		if width%factor != 0 || height%factor != 0 {
			return vision.Plan{}, fmt.Errorf("qwenvl: plan %dx%d: do_resize is off and the size is not a multiple of %d: %w",
				width, height, factor, vision.ErrBadInput)
		}
	}
	if float64(w)*float64(h) > float64(p.limit) {
		return vision.Plan{}, fmt.Errorf("qwenvl: plan %dx%d: resized to %dx%d, over the %d-pixel limit: %w",
			width, height, w, h, p.limit, vision.ErrTooLarge)
	}
	return p.planFor(width, height, w, h), nil
}

func (p *Processor) planFor(srcW, srcH, w, h int) vision.Plan {
	ps, m := p.cfg.PatchSize, p.cfg.MergeSize
	gh, gw := h/ps, w/ps
	rows := gh * gw
	return vision.Plan{
		SourceWidth: srcW, SourceHeight: srcH,
		Width: w, Height: h,
		GridT: 1, GridH: gh, GridW: gw,
		Tokens: rows / (m * m),
		Rows:   rows, Cols: 3 * p.cfg.TemporalPatchSize * ps * ps,
	}
}

// checkPlan verifies ProcessImage's arguments (vision.CheckProcess) and
// that plan is one this processor could have made for img.
func (p *Processor) checkPlan(img *imaging.RGB, plan vision.Plan, dt tensor.DType, dst []byte) error {
	if err := vision.CheckProcess(img, plan, dt, dst); err != nil {
		return err
	}
	return p.checkPlanShape(plan)
}

// checkPlanShape verifies that plan is one this processor makes: a
// planned size that is a positive multiple of the factor, and the grid,
// tokens and shape planFor gives it.
func (p *Processor) checkPlanShape(plan vision.Plan) error {
	f := p.cfg.Factor()
	if plan.Width <= 0 || plan.Height <= 0 || plan.Width%f != 0 || plan.Height%f != 0 {
		return fmt.Errorf("planned size %dx%d is not a positive multiple of %d: %w", plan.Width, plan.Height, f, vision.ErrBadInput)
	}
	if want := p.planFor(plan.SourceWidth, plan.SourceHeight, plan.Width, plan.Height); want != plan {
		return fmt.Errorf("plan %+v is inconsistent (want %+v): %w", plan, want, vision.ErrBadInput)
	}
	return nil
}

// ProcessImage implements vision.Processor: resize img to the planned size
// (skipped when it already has it), then normalize and patchify straight into
// dst in dtype dt (Float32, BFloat16 or Float16).
func (p *Processor) ProcessImage(ctx context.Context, img *imaging.RGB, plan vision.Plan, dt tensor.DType, dst []byte) (vision.Timings, error) {
	var tm vision.Timings
	if err := p.checkPlan(img, plan, dt, dst); err != nil {
		return tm, fmt.Errorf("qwenvl: process: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return tm, err
	}
	resized := img
	if plan.Width != img.Width || plan.Height != img.Height {
		t0 := time.Now()
		resized = imaging.NewRGB(plan.Width, plan.Height)
		if err := p.resizer.ResizeInto(ctx, resized, img, p.filter); err != nil {
			return tm, fmt.Errorf("qwenvl: resize: %w", err)
		}
		tm.Resize = time.Since(t0)
	}
	t0 := time.Now()
	if err := p.normalizePatchify(ctx, resized, plan, dt, dst); err != nil {
		return tm, fmt.Errorf("qwenvl: patchify: %w", err)
	}
	tm.NormalizePatchify = time.Since(t0)
	return tm, nil
}

// normalizePatchify writes pixel_values of an image that already has the
// planned size.
func (p *Processor) normalizePatchify(ctx context.Context, img *imaging.RGB, plan vision.Plan, dt tensor.DType, dst []byte) error {
	l := layout{p: p.cfg.PatchSize, m: p.cfg.MergeSize, tau: p.cfg.TemporalPatchSize, gh: plan.GridH, gw: plan.GridW}
	stride := img.Stride()
	var kernel func(bh0, bh1 int)
	stream := streams(len(dst))
	switch dt {
	case tensor.Float32:
		lut, aff := p.table.Bits32(), affineOf(p.table)
		kernel = func(bh0, bh1 int) { patchify32Auto(dst, img.Pix, stride, l, lut, aff, stream, bh0, bh1) }
	case tensor.BFloat16, tensor.Float16:
		k := kernel16For(p.table.Bits16(dt), l)
		kernel = func(bh0, bh1 int) { patchify16Auto(dst, img.Pix, stride, l, k, stream, bh0, bh1) }
	}
	return patchifyParallel(ctx, p.workers, l, kernel)
}
