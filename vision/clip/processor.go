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

// Options configure a Processor (planar.Options).
type Options = planar.Options

// Processor is the LLaVA-1.5 (CLIP) image processor for one configuration.
// It implements vision.Processor and is safe for concurrent use.
type Processor struct {
	cfg Config
	eng planar.Engine
}

var _ vision.Processor = (*Processor)(nil)

// New builds a processor from a configuration (which it copies).
func New(cfg *Config, o Options) (*Processor, error) {
	eng, err := planar.Setup(cfg, o)
	if err != nil {
		return nil, err
	}
	return &Processor{cfg: *cfg, eng: eng}, nil
}

// Load reads a model folder (LoadConfig) and builds its processor.
func Load(dir string, o Options) (*Processor, error) { return planar.Build(dir, o, LoadConfig, New) }

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
	if !p.eng.Fits(g.ResizeW, g.ResizeH) {
		return vision.Plan{}, fmt.Errorf("clip: plan %dx%d: resized to %dx%d, over the %d-pixel limit: %w",
			width, height, g.ResizeW, g.ResizeH, p.eng.PixelLimit, vision.ErrTooLarge)
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
	v, d, err := p.cfg.Image.View(ctx, p.eng.Resizer, img, g)
	tm.Resize = d
	if err != nil {
		return tm, fmt.Errorf("clip: %w", err)
	}
	t0 := time.Now()
	if err := p.eng.Write(ctx, dst, []planar.View{v}, dt); err != nil {
		return tm, fmt.Errorf("clip: normalize: %w", err)
	}
	tm.NormalizePatchify = time.Since(t0)
	return tm, nil
}
