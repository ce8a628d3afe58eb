package internvl

import (
	"context"
	"fmt"
	"time"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/planar"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

// Options configure a Processor; they are Qwen-VL's (Workers bounds the
// goroutines that normalize one image's tiles, Resizer performs the
// resizes, PixelLimit bounds the main resize). The zero value means the
// defaults.
type Options = qwenvl.Options

// maxSource bounds the source sides PlanImage accepts, so that area
// products stay exact in float64.
const maxSource = 1 << 24

// Processor is the InternVL image processor for one configuration. It
// implements vision.Processor and is safe for concurrent use.
type Processor struct {
	cfg    Config
	cands  []grid
	eng    planar.Engine
	filter resample.Filter
}

var _ vision.Processor = (*Processor)(nil)

// New builds a processor from a configuration (which it copies).
func New(cfg *Config, o Options) (*Processor, error) {
	if cfg == nil {
		return nil, fmt.Errorf("internvl: nil config: %w", vision.ErrBadOptions)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	eng, err := planar.NewEngine(cfg.NormParams(), o)
	if err != nil {
		return nil, fmt.Errorf("internvl: %w", err)
	}
	p := &Processor{cfg: *cfg, eng: eng, filter: resample.Filter(cfg.Resample)}
	if cfg.MaxTiles > 1 {
		p.cands = candidates(cfg.MinTiles, cfg.MaxTiles)
	}
	return p, nil
}

// Load builds a processor from a model folder (see LoadConfig).
func Load(dir string, o Options) (*Processor, error) {
	cfg, err := LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	return New(cfg, o)
}

// ModelType implements vision.Processor.
func (p *Processor) ModelType() string { return p.cfg.ModelType }

// Config returns a copy of the processor's configuration.
func (p *Processor) Config() Config { return p.cfg }

// tiling reports whether images are cut into tiles (crop_to_patches with
// max_patches > 1).
func (p *Processor) tiling() bool { return p.cfg.MaxTiles > 1 }

// PlanImage implements vision.Processor. Overrides do not apply (the
// processor has no pixel bounds) but must be valid. The plan's
// Width×Height is the main resize (tileW·cols × tileH·rows), Views the
// number of tiles plus the thumbnail, Dims [views, 3, tileH, tileW] and
// Tokens image_seq_length·views.
func (p *Processor) PlanImage(width, height int, o vision.Overrides) (vision.Plan, error) {
	if err := o.Validate(); err != nil {
		return vision.Plan{}, err
	}
	if width <= 0 || height <= 0 {
		return vision.Plan{}, fmt.Errorf("internvl: plan %dx%d: %w", width, height, vision.ErrTooSmall)
	}
	if width > maxSource || height > maxSource {
		return vision.Plan{}, fmt.Errorf("internvl: plan %dx%d: %w", width, height, vision.ErrTooLarge)
	}
	tw, th := p.cfg.TileWidth, p.cfg.TileHeight
	w, h, views := tw, th, 1
	switch {
	case p.tiling():
		g := bestGrid(width, height, tw, th, p.cands)
		w, h, views = tw*g.cols, th*g.rows, g.cols*g.rows
		if views > 1 {
			views++ // the thumbnail
		}
	case !p.cfg.DoResize:
		w, h = width, height
	}
	if float64(w)*float64(h) > float64(p.eng.PixelLimit) {
		return vision.Plan{}, fmt.Errorf("internvl: plan %dx%d: resized to %dx%d, over the %d-pixel limit: %w",
			width, height, w, h, p.eng.PixelLimit, vision.ErrTooLarge)
	}
	return p.planFor(width, height, w, h, views), nil
}

func (p *Processor) planFor(srcW, srcH, w, h, views int) vision.Plan {
	tw, th := p.cfg.TileWidth, p.cfg.TileHeight
	if !p.tiling() {
		tw, th = w, h
	}
	return vision.Plan{
		SourceWidth: srcW, SourceHeight: srcH,
		Width: w, Height: h,
		Tokens: p.cfg.ImageSeqLength * views,
		NDims:  4, Dims: [vision.MaxDims]int{views, 3, th, tw},
		Views: views,
	}
}

// NumPatches is the plan's num_patches (tiles plus the thumbnail).
func (p *Processor) NumPatches(plan vision.Plan) int { return plan.Views }

// views returns the planes of a plan: the tiles of main (the main resize)
// in row-major order, then the thumbnail when there is one.
func (p *Processor) views(plan vision.Plan, main, thumb *imaging.RGB) []planar.View {
	tw, th := plan.Dims[3], plan.Dims[2]
	cols, rows := plan.Width/tw, plan.Height/th
	out := make([]planar.View, 0, plan.Views)
	for r := range rows {
		for c := range cols {
			out = append(out, planar.View{Src: main, X: c * tw, Y: r * th, W: tw, H: th})
		}
	}
	if thumb != nil {
		out = append(out, planar.View{Src: thumb, W: tw, H: th})
	}
	return out
}

// ProcessImage implements vision.Processor: the main resize (skipped when
// the image has the planned size) and, with more than one tile, the
// thumbnail resize; then the tiles in row-major order and the thumbnail,
// each normalized straight into its slot of dst in dtype dt (Float32,
// BFloat16 or Float16).
func (p *Processor) ProcessImage(ctx context.Context, img *imaging.RGB, plan vision.Plan, dt tensor.DType, dst []byte) (vision.Timings, error) {
	var tm vision.Timings
	if err := planar.CheckPlan(p, img, plan, dt, dst); err != nil {
		return tm, fmt.Errorf("internvl: process: %w", err)
	}
	t0 := time.Now()
	main, err := p.resized(ctx, img, plan.Width, plan.Height)
	if err != nil {
		return tm, err
	}
	var thumb *imaging.RGB
	if plan.Views > (plan.Width/plan.Dims[3])*(plan.Height/plan.Dims[2]) {
		if thumb, err = p.resized(ctx, img, plan.Dims[3], plan.Dims[2]); err != nil {
			return tm, err
		}
	}
	tm.Resize = time.Since(t0)
	t0 = time.Now()
	if err := p.eng.Write(ctx, dst, p.views(plan, main, thumb), dt); err != nil {
		return tm, fmt.Errorf("internvl: %w", err)
	}
	tm.NormalizePatchify = time.Since(t0)
	return tm, nil
}

// resized returns img resized to w×h, or img itself when it has that size
// (Pillow copies; the pixels are the same).
func (p *Processor) resized(ctx context.Context, img *imaging.RGB, w, h int) (*imaging.RGB, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if img.Width == w && img.Height == h {
		return img, nil
	}
	out := imaging.NewRGB(w, h)
	if err := p.eng.Resizer.ResizeInto(ctx, out, img, p.filter); err != nil {
		return nil, fmt.Errorf("internvl: resize to %dx%d: %w", w, h, err)
	}
	return out, nil
}
