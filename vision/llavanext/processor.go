package llavanext

import (
	"context"
	"fmt"
	"time"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/clip"
	"github.com/mmgate/mmgate/vision/planar"
)

// Options configure a Processor (planar.Options; PixelLimit bounds every
// resize, including the CLIP resize of an edge tile of odd pinpoints).
type Options = planar.Options

// Processor is the LLaVA-NeXT image processor for one configuration. It
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
	c := *cfg
	c.Pinpoints = append([][2]int(nil), cfg.Pinpoints...)
	return &Processor{cfg: c, eng: eng}, nil
}

// Load reads a model folder (LoadConfig) and builds its processor.
func Load(dir string, o Options) (*Processor, error) { return planar.Build(dir, o, LoadConfig, New) }

// ModelType implements vision.Processor.
func (p *Processor) ModelType() string { return ModelType }

// Config returns a copy of the processor's configuration.
func (p *Processor) Config() Config {
	c := p.cfg
	c.Pinpoints = append([][2]int(nil), p.cfg.Pinpoints...)
	return c
}

// layout is where the views of one image come from.
type layout struct {
	best             [2]int        // pinpoint (height, width)
	resizeH, resizeW int           // the anyres resize
	padY, padX       int           // top and left padding of the resized image
	tile             int           // tile side
	base             clip.Geometry // CLIP steps of the whole image after its first resize
	baseH, baseW     int           // that first resize
	viewH, viewW     int           // every view's size after the CLIP steps
}

// tiles is the tile grid (rows, cols) of the padded image.
func (l *layout) tiles() (int, int) {
	return (l.best[0] + l.tile - 1) / l.tile, (l.best[1] + l.tile - 1) / l.tile
}

// tileGeometry is the tile at (ty, tx): its top-left corner in the padded
// image, its size and its CLIP steps.
func (p *Processor) tileGeometry(l *layout, ty, tx int) (x, y int, g clip.Geometry) {
	x, y = tx*l.tile, ty*l.tile
	w, h := min(l.tile, l.best[1]-x), min(l.tile, l.best[0]-y)
	return x, y, p.cfg.Image.Geometry(w, h)
}

func (p *Processor) layoutOf(w, h int) (layout, error) {
	var l layout
	best, ok := BestResolution(h, w, p.cfg.Pinpoints)
	if !ok {
		return l, fmt.Errorf("no pinpoints: %w", vision.ErrBadOptions)
	}
	l.best, l.tile = best, p.cfg.TileSize()
	l.resizeH, l.resizeW = PatchOutputSize(h, w, best)
	l.padY, l.padX = (best[0]-l.resizeH)/2, (best[1]-l.resizeW)/2
	l.baseH, l.baseW = p.cfg.BaseSize()
	l.base = p.cfg.Image.Geometry(l.baseW, l.baseH)
	l.viewH, l.viewW = l.base.H, l.base.W
	geoms := []clip.Geometry{l.base}
	rows, cols := l.tiles()
	for ty := range rows {
		for tx := range cols {
			_, _, g := p.tileGeometry(&l, ty, tx)
			geoms = append(geoms, g)
		}
	}
	for _, g := range geoms {
		if g.W != l.viewW || g.H != l.viewH {
			return l, fmt.Errorf("views of %dx%d and %dx%d cannot be stacked: %w", l.viewW, l.viewH, g.W, g.H, vision.ErrUnsupported)
		}
		if !p.eng.Fits(g.ResizeW, g.ResizeH) {
			return l, fmt.Errorf("a view resized to %dx%d is over the %d-pixel limit: %w", g.ResizeW, g.ResizeH, p.eng.PixelLimit, vision.ErrTooLarge)
		}
	}
	return l, nil
}

// PlanImage implements vision.Processor. Overrides do not apply to
// LLaVA-NeXT and are only validated.
func (p *Processor) PlanImage(width, height int, o vision.Overrides) (vision.Plan, error) {
	if err := o.Validate(); err != nil {
		return vision.Plan{}, err
	}
	if width <= 0 || height <= 0 {
		return vision.Plan{}, fmt.Errorf("llavanext: plan %dx%d: %w", width, height, vision.ErrTooSmall)
	}
	l, err := p.layoutOf(width, height)
	if err != nil {
		return vision.Plan{}, fmt.Errorf("llavanext: plan %dx%d: %w", width, height, err)
	}
	tokens, err := p.cfg.Tokens(height, width, l.best, l.viewH, l.viewW)
	if err != nil {
		return vision.Plan{}, fmt.Errorf("llavanext: plan %dx%d: %w", width, height, err)
	}
	rows, cols := l.tiles()
	views := 1 + rows*cols
	return vision.Plan{
		SourceWidth: width, SourceHeight: height,
		Width: l.resizeW, Height: l.resizeH,
		Tokens: tokens,
		NDims:  5, Dims: [vision.MaxDims]int{1, views, 3, l.viewH, l.viewW},
		Views: views,
	}, nil
}

// ImageSizes is the image_sizes row of a plan: the source (height, width).
func ImageSizes(plan vision.Plan) [2]int { return [2]int{plan.SourceHeight, plan.SourceWidth} }

// ProcessImage implements vision.Processor: the whole image and then the
// tiles of the padded anyres resize go through the CLIP steps into dst.
func (p *Processor) ProcessImage(ctx context.Context, img *imaging.RGB, plan vision.Plan, dt tensor.DType, dst []byte) (vision.Timings, error) {
	var tm vision.Timings
	if err := planar.CheckPlan(p, img, plan, dt, dst); err != nil {
		return tm, fmt.Errorf("llavanext: process: %w", err)
	}
	l, err := p.layoutOf(img.Width, img.Height)
	if err != nil {
		return tm, fmt.Errorf("llavanext: process: %w", err)
	}
	t0 := time.Now()
	views, err := p.views(ctx, img, &l, plan.Views)
	tm.Resize = time.Since(t0)
	if err != nil {
		return tm, fmt.Errorf("llavanext: %w", err)
	}
	t0 = time.Now()
	if err := p.eng.Write(ctx, dst, views, dt); err != nil {
		return tm, fmt.Errorf("llavanext: normalize: %w", err)
	}
	tm.NormalizePatchify = time.Since(t0)
	return tm, nil
}

// resized returns img resized to w×h (img itself when it has that size).
func (p *Processor) resized(ctx context.Context, img *imaging.RGB, w, h int) (*imaging.RGB, error) {
	if img.Width == w && img.Height == h {
		return img, nil
	}
	out := imaging.NewRGB(w, h)
	if err := p.eng.Resizer.ResizeInto(ctx, out, img, p.cfg.Image.Resample); err != nil {
		return nil, fmt.Errorf("resize: %w", err)
	}
	return out, nil
}

// views resizes what the views need and returns them in order. A tile whose
// CLIP steps are a crop inside it is a window of the resized image (its
// padding reads as 0 outside it); any other tile is copied out first.
func (p *Processor) views(ctx context.Context, img *imaging.RGB, l *layout, n int) ([]planar.View, error) {
	views := make([]planar.View, 0, n)
	base, err := p.resized(ctx, img, l.baseW, l.baseH)
	if err != nil {
		return nil, err
	}
	v, _, err := p.cfg.Image.View(ctx, p.eng.Resizer, base, l.base)
	if err != nil {
		return nil, err
	}
	views = append(views, v)
	anyres, err := p.resized(ctx, img, l.resizeW, l.resizeH)
	if err != nil {
		return nil, err
	}
	rows, cols := l.tiles()
	for ty := range rows {
		for tx := range cols {
			x, y, g := p.tileGeometry(l, ty, tx)
			tw, th := min(l.tile, l.best[1]-x), min(l.tile, l.best[0]-y)
			if g.ResizeW == tw && g.ResizeH == th && g.X >= 0 && g.Y >= 0 && g.X+g.W <= tw && g.Y+g.H <= th {
				views = append(views, planar.View{Src: anyres, X: x - l.padX + g.X, Y: y - l.padY + g.Y, W: g.W, H: g.H})
				continue
			}
			tile := planar.Crop(anyres, x-l.padX, y-l.padY, tw, th)
			v, _, err := p.cfg.Image.View(ctx, p.eng.Resizer, tile, g)
			if err != nil {
				return nil, err
			}
			views = append(views, v)
		}
	}
	return views, nil
}
