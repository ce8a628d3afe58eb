package gemma3

import (
	"context"
	"fmt"
	"time"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/planar"
)

// Options configure a Processor (planar.Options; Gemma 3's resize has a
// fixed size, so PixelLimit does not apply).
type Options = planar.Options

// Processor is the Gemma 3 image processor for one configuration. It
// implements vision.Processor and is safe for concurrent use.
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

// PlanImage implements vision.Processor. Overrides do not apply to Gemma 3
// (its processor has no pixel budget) and are only validated.
func (p *Processor) PlanImage(width, height int, o vision.Overrides) (vision.Plan, error) {
	if err := o.Validate(); err != nil {
		return vision.Plan{}, err
	}
	if width <= 0 || height <= 0 {
		return vision.Plan{}, fmt.Errorf("gemma3: plan %dx%d: %w", width, height, vision.ErrTooSmall)
	}
	crops, ok := p.cfg.PanAndScan.cropsOf(width, height)
	if !ok {
		return vision.Plan{}, fmt.Errorf("gemma3: plan %dx%d: a pan-and-scan crop would be empty: %w", width, height, vision.ErrTooSmall)
	}
	return p.planFor(width, height, len(crops)), nil
}

func (p *Processor) planFor(w, h, crops int) vision.Plan {
	views := 1 + crops
	return vision.Plan{
		SourceWidth: w, SourceHeight: h,
		Width: p.cfg.Width, Height: p.cfg.Height,
		Tokens: p.cfg.ImageSeqLength * views,
		NDims:  4, Dims: [vision.MaxDims]int{views, 3, p.cfg.Height, p.cfg.Width},
		Views: views,
	}
}

// NumCrops is the num_crops value of a plan: its pan-and-scan crops.
func NumCrops(plan vision.Plan) int { return max(plan.Views-1, 0) }

// ProcessImage implements vision.Processor: every view (the image, then its
// crops) is resized to the configured size and written normalized,
// channels first, into dst.
func (p *Processor) ProcessImage(ctx context.Context, img *imaging.RGB, plan vision.Plan, dt tensor.DType, dst []byte) (vision.Timings, error) {
	var tm vision.Timings
	if err := planar.CheckPlan(p, img, plan, dt, dst); err != nil {
		return tm, fmt.Errorf("gemma3: process: %w", err)
	}
	srcs := []*imaging.RGB{img}
	for _, c := range p.cfg.PanAndScan.Crops(img.Width, img.Height) {
		srcs = append(srcs, planar.Crop(img, c.X, c.Y, c.W, c.H))
	}
	viewBytes := 3 * p.cfg.Width * p.cfg.Height * dt.Size()
	var scratch *imaging.RGB
	for i, src := range srcs {
		if err := ctx.Err(); err != nil {
			return tm, err
		}
		view := src
		if src.Width != p.cfg.Width || src.Height != p.cfg.Height {
			if scratch == nil {
				scratch = imaging.NewRGB(p.cfg.Width, p.cfg.Height)
			}
			t0 := time.Now()
			if err := p.eng.Resizer.ResizeInto(ctx, scratch, src, p.cfg.Resample); err != nil {
				return tm, fmt.Errorf("gemma3: resize: %w", err)
			}
			tm.Resize += time.Since(t0)
			view = scratch
		}
		t0 := time.Now()
		out := dst[i*viewBytes : (i+1)*viewBytes]
		v := []planar.View{{Src: view, W: view.Width, H: view.Height}}
		if err := p.eng.Write(ctx, out, v, dt); err != nil {
			return tm, fmt.Errorf("gemma3: normalize: %w", err)
		}
		tm.NormalizePatchify += time.Since(t0)
	}
	return tm, nil
}
