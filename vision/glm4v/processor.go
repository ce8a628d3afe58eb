package glm4v

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

// Options configure a Processor. The zero value means the defaults.
type Options struct {
	// Workers, Resizer and PixelLimit are Qwen-VL's: goroutines of one
	// item's normalize + patchify and of a video's frames (0: GOMAXPROCS),
	// the resizer (nil: a resample.Resizer, shared by images and videos),
	// the largest resized frame (0: qwenvl.DefaultPixelLimit; over it
	// planning fails with vision.ErrTooLarge).
	qwenvl.Options
	// VideoFramePad is the token each video frame's run repeats. "" means
	// the image token, as Glm4vProcessor writes it (SGLang does the same);
	// vLLM's GLM-4.1V processor writes the video token there instead.
	VideoFramePad string
}

// Processor is the GLM-4.1V / GLM-4.5V preprocessor for one configuration.
// It implements vision.VideoProcessor and is safe for concurrent use.
type Processor struct {
	cfg      Config
	img, vid *qwenvl.Processor // the pixel stages, with the image and the video values
	limit    int
	framePad string
}

var _ vision.VideoProcessor = (*Processor)(nil)

// New builds a processor from a configuration (which it copies).
func New(cfg *Config, o Options) (*Processor, error) {
	if cfg == nil {
		return nil, fmt.Errorf("glm4v: nil config: %w", vision.ErrBadOptions)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// qwenvl.New checks the options.
	qo := o.Options
	if qo.Resizer == nil && qo.Workers >= 0 {
		// One resizer (and coefficient cache) for images and videos.
		r, err := resample.New(resample.Options{Workers: o.Workers})
		if err != nil {
			return nil, fmt.Errorf("glm4v: resizer: %w", err)
		}
		qo.Resizer = r
	}
	img, err := qwenvl.New(cfg.Image.qwen(), qo)
	if err != nil {
		return nil, fmt.Errorf("glm4v: %w", err)
	}
	vid, err := qwenvl.New(cfg.Video.qwen(), qo)
	if err != nil {
		return nil, fmt.Errorf("glm4v: %w", err)
	}
	return &Processor{
		cfg: *cfg, img: img, vid: vid,
		limit:    cmp.Or(o.PixelLimit, qwenvl.DefaultPixelLimit),
		framePad: cmp.Or(o.VideoFramePad, cfg.ImageToken),
	}, nil
}

// ModelType implements vision.Processor.
func (p *Processor) ModelType() string { return p.cfg.ModelType }

// Config returns a copy of the processor's configuration.
func (p *Processor) Config() Config { return p.cfg }

// bounds applies overrides (min_pixels / max_pixels standing for
// size.shortest_edge / size.longest_edge) to s's bounds.
func bounds(s Settings, minPx, maxPx int) (int, int) {
	lo, hi := s.MinPixels, s.MaxPixels
	if minPx > 0 {
		lo = minPx
	}
	if maxPx > 0 {
		hi = maxPx
	}
	return lo, hi
}

// plan sizes n frames (an image: temporal_patch_size of them) of
// width×height with s and returns the grid. An item whose frames would not
// be resized must already have sides that are multiples of the factor.
func (p *Processor) plan(s Settings, n, width, height, minPx, maxPx int) (vision.Plan, error) {
	f := s.Factor()
	w, h := width, height
	if s.DoResize {
		lo, hi := bounds(s, minPx, maxPx)
		var err error
		if h, w, err = SmartResize(n, height, width, s.TemporalPatchSize, f, lo, hi); err != nil {
			return vision.Plan{}, err
		}
	} else if width <= 0 || height <= 0 || width%f != 0 || height%f != 0 {
		return vision.Plan{}, fmt.Errorf("glm4v: plan %dx%d: do_resize is off and the sides are not multiples of %d: %w",
			width, height, f, vision.ErrBadInput)
	}
	if float64(w)*float64(h) > float64(p.limit) {
		return vision.Plan{}, fmt.Errorf("glm4v: plan %dx%d: resized to %dx%d, over the %d-pixel limit: %w",
			width, height, w, h, p.limit, vision.ErrTooLarge)
	}
	gt := (n + s.TemporalPatchSize - 1) / s.TemporalPatchSize
	gh, gw := h/s.PatchSize, w/s.PatchSize
	rows := gt * gh * gw
	return vision.Plan{
		SourceWidth: width, SourceHeight: height, Width: w, Height: h,
		GridT: gt, GridH: gh, GridW: gw,
		Tokens: rows / (s.MergeSize * s.MergeSize),
		Rows:   rows, Cols: 3 * s.TemporalPatchSize * s.PatchSize * s.PatchSize,
	}, nil
}

// PlanImage implements vision.Processor: smart_resize over
// temporal_patch_size frames, grid [1, h/p, w/p], h·w/(p·merge)² tokens.
// Overrides replace size.shortest_edge (MinPixels) and size.longest_edge
// (MaxPixels), the bounds on temporal_patch_size·h·w.
func (p *Processor) PlanImage(width, height int, o vision.Overrides) (vision.Plan, error) {
	if err := o.Validate(); err != nil {
		return vision.Plan{}, err
	}
	s := p.cfg.Image
	return p.plan(s, s.TemporalPatchSize, width, height, o.MinPixels, o.MaxPixels)
}

// ProcessImage implements vision.Processor: the Pillow resize, rescale,
// normalize and Qwen2-VL patchify, straight into dst.
func (p *Processor) ProcessImage(ctx context.Context, img *imaging.RGB, plan vision.Plan, dt tensor.DType, dst []byte) (vision.Timings, error) {
	tm, err := p.img.ProcessImage(ctx, img, plan, dt, dst)
	if err != nil {
		return tm, fmt.Errorf("glm4v: %w", err)
	}
	return tm, nil
}

// PlanVideo implements vision.VideoProcessor: frames sampled by
// SampleFrames at the configured fps (o.FPS replaces it; with
// do_sample_frames off and no o.FPS every frame is taken), then
// smart_resize over the sampled count with the video processor's bounds
// (o.MinPixels / o.MaxPixels replace them). o.NumFrames and o.TotalPixels
// do not apply: Glm4vVideoProcessor has no such settings. A video without
// a frame rate wraps vision.ErrUnsupported. The plan's Timestamps stay nil:
// GLM labels groups with whole seconds (GroupSeconds, VideoPrompt).
func (p *Processor) PlanVideo(info vision.VideoInfo, o vision.VideoOverrides) (vision.VideoPlan, error) {
	if err := o.Validate(); err != nil {
		return vision.VideoPlan{}, err
	}
	if info.Width <= 0 || info.Height <= 0 || info.Frames < 1 {
		return vision.VideoPlan{}, fmt.Errorf("glm4v: plan video %dx%d, %d frames: %w", info.Width, info.Height, info.Frames, vision.ErrTooSmall)
	}
	if !(info.FPS > 0) || math.IsInf(info.FPS, 0) {
		return vision.VideoPlan{}, fmt.Errorf("glm4v: plan video: no frame rate (%v): %w", info.FPS, vision.ErrUnsupported)
	}
	var idx []int
	if p.cfg.SampleFrames || o.FPS > 0 {
		fps := p.cfg.FPS
		if o.FPS > 0 {
			fps = o.FPS
		}
		var err error
		if idx, err = SampleFrames(info.Frames, info.FPS, fps); err != nil {
			return vision.VideoPlan{}, err
		}
	} else {
		idx = make([]int, min(info.Frames, qwenvl.MaxVideoFrames+1))
		for i := range idx {
			idx[i] = i
		}
	}
	if len(idx) > qwenvl.MaxVideoFrames {
		return vision.VideoPlan{}, fmt.Errorf("glm4v: plan video: over %d sampled frames: %w", qwenvl.MaxVideoFrames, vision.ErrTooLarge)
	}
	plan, err := p.plan(p.cfg.Video, len(idx), info.Width, info.Height, o.MinPixels, o.MaxPixels)
	if err != nil {
		return vision.VideoPlan{}, err
	}
	return vision.VideoPlan{Plan: plan, Indices: idx, SourceFPS: info.FPS}, nil
}

// StartVideo implements vision.VideoProcessor (frames resized with the
// Pillow-exact bicubic, normalized with the video processor's values and
// patchified in groups of temporal_patch_size).
func (p *Processor) StartVideo(plan vision.VideoPlan, dt tensor.DType, dst []byte) (vision.VideoSink, error) {
	s, err := p.vid.StartVideo(plan, dt, dst)
	if err != nil {
		return nil, fmt.Errorf("glm4v: %w", err)
	}
	return s, nil
}

// ProcessVideo implements vision.VideoProcessor: frames are the sampled
// frames in plan order.
func (p *Processor) ProcessVideo(ctx context.Context, frames []*imaging.RGB, plan vision.VideoPlan, dt tensor.DType, dst []byte) (vision.VideoTimings, error) {
	tm, err := p.vid.ProcessVideo(ctx, frames, plan, dt, dst)
	if err != nil {
		return tm, fmt.Errorf("glm4v: %w", err)
	}
	return tm, nil
}
