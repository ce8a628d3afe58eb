package clip

import (
	"context"
	"fmt"
	"time"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/planar"
)

// DefaultPixelLimit is the default Options.PixelLimit: 64 Mpx.
const DefaultPixelLimit = 1 << 26

// Options configure a Processor. The zero value means the defaults.
type Options struct {
	// Workers bounds the goroutines of one ProcessImage call's normalize
	// stage (and of the default resizer). 0 means GOMAXPROCS; the output
	// does not depend on it.
	Workers int
	// Resizer performs the resize. nil means a resample.Resizer with the
	// same Workers.
	Resizer planar.Resizer
	// PixelLimit is the largest resized width×height a plan may have; over
	// it PlanImage fails with vision.ErrTooLarge. 0 means DefaultPixelLimit.
	PixelLimit int
}

// Processor is the LLaVA-1.5 (CLIP) image processor for one configuration.
// It implements vision.Processor and is safe for concurrent use.
type Processor struct {
	cfg     Config
	norm    *planar.Norm
	workers int
	limit   int
	resizer planar.Resizer
}

var _ vision.Processor = (*Processor)(nil)

// New builds a processor from a configuration (which it copies).
func New(cfg *Config, o Options) (*Processor, error) {
	if cfg == nil {
		return nil, fmt.Errorf("clip: nil config: %w", vision.ErrBadOptions)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if o.Workers < 0 || o.PixelLimit < 0 {
		return nil, fmt.Errorf("clip: workers %d, pixel limit %d: %w", o.Workers, o.PixelLimit, vision.ErrBadOptions)
	}
	r, err := planar.NewResizer(o.Resizer, o.Workers)
	if err != nil {
		return nil, fmt.Errorf("clip: resizer: %w", err)
	}
	p := &Processor{cfg: *cfg, norm: planar.NewNorm(cfg.Image.Norm), workers: o.Workers, limit: o.PixelLimit, resizer: r}
	if p.limit == 0 {
		p.limit = DefaultPixelLimit
	}
	return p, nil
}

// Load reads a model folder (LoadConfig) and builds its processor.
func Load(dir string, o Options) (*Processor, error) {
	cfg, err := LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	return New(cfg, o)
}

// ModelType implements vision.Processor.
func (p *Processor) ModelType() string { return ModelType }

// Config returns a copy of the processor's configuration.
func (p *Processor) Config() Config { return p.cfg }

// ImageTokens is LlavaProcessor's image-token count for a view of
// height×width: whole patches plus num_additional_image_tokens, minus one
// for the "default" strategy.
func (c *PromptConfig) ImageTokens(height, width int) int {
	n := (height/c.PatchSize)*(width/c.PatchSize) + c.NumAdditionalImageTokens
	if c.Strategy == "default" {
		n--
	}
	return n
}

// PlanImage implements vision.Processor. Overrides do not apply to CLIP and
// are only validated.
func (p *Processor) PlanImage(width, height int, o vision.Overrides) (vision.Plan, error) {
	if err := o.Validate(); err != nil {
		return vision.Plan{}, err
	}
	if width <= 0 || height <= 0 {
		return vision.Plan{}, fmt.Errorf("clip: plan %dx%d: %w", width, height, vision.ErrTooSmall)
	}
	g := p.cfg.Image.Geometry(width, height)
	if float64(g.ResizeW)*float64(g.ResizeH) > float64(p.limit) {
		return vision.Plan{}, fmt.Errorf("clip: plan %dx%d: resized to %dx%d, over the %d-pixel limit: %w",
			width, height, g.ResizeW, g.ResizeH, p.limit, vision.ErrTooLarge)
	}
	tokens := p.cfg.Prompt.ImageTokens(g.H, g.W)
	if tokens < 1 {
		return vision.Plan{}, fmt.Errorf("clip: plan %dx%d: %d image tokens: %w", width, height, tokens, vision.ErrTooSmall)
	}
	return vision.Plan{
		SourceWidth: width, SourceHeight: height,
		Width: g.ResizeW, Height: g.ResizeH,
		Tokens: tokens,
		NDims:  4, Dims: [vision.MaxDims]int{1, 3, g.H, g.W},
		Views: 1,
	}, nil
}

// ProcessImage implements vision.Processor: resize, center crop and
// normalize img into dst, channels first.
func (p *Processor) ProcessImage(ctx context.Context, img *imaging.RGB, plan vision.Plan, dt tensor.DType, dst []byte) (vision.Timings, error) {
	var tm vision.Timings
	if err := planar.CheckPlan(p, img, plan, dt, dst); err != nil {
		return tm, fmt.Errorf("clip: process: %w", err)
	}
	g := p.cfg.Image.Geometry(img.Width, img.Height)
	v, d, err := p.cfg.Image.View(ctx, p.resizer, img, g)
	tm.Resize = d
	if err != nil {
		return tm, fmt.Errorf("clip: %w", err)
	}
	t0 := time.Now()
	if err := planar.Write(ctx, dst, []planar.View{v}, p.norm, dt, p.workers); err != nil {
		return tm, fmt.Errorf("clip: normalize: %w", err)
	}
	tm.NormalizePatchify = time.Since(t0)
	return tm, nil
}
