package qwenvl

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/norm"
)

// Video processing: planning (sampling, per-frame size, grid, prompt
// metadata) and pixels (per-frame Pillow resize, LUT, temporal patchify into
// a caller buffer). The per-model rules are in video.go.

// MaxVideoFrames is the most sampled frames a video plan may hold; more
// (for example a request num_frames over it) is refused with
// vision.ErrTooLarge.
const MaxVideoFrames = vision.MaxVideoFrames

var _ vision.VideoProcessor = (*Processor)(nil)

// videoSettings are the processor settings a video uses: the video
// preprocessor config for Qwen3-VL (the class defaults when the model
// folder has none), the image config for Qwen2-VL / Qwen2.5-VL.
type videoSettings struct {
	patch, merge, tau int
	minPx, maxPx      int
	mean, std         [3]float64
	rescale           float64
	doRescale, doNorm bool
	resample          int
	fps               float64
	minFrames, maxFrm int
	sample            bool
}

func (p *Processor) isQwen3() bool {
	return p.cfg.ModelType == ModelQwen3VL || p.cfg.ModelType == ModelQwen3VLMoE
}

func (p *Processor) videoSettings() videoSettings {
	c := p.cfg
	s := videoSettings{
		patch: c.PatchSize, merge: c.MergeSize, tau: c.TemporalPatchSize,
		minPx: c.MinPixels, maxPx: c.MaxPixels, mean: c.ImageMean, std: c.ImageStd,
		rescale: c.RescaleFactor, doRescale: c.DoRescale, doNorm: c.DoNormalize, resample: c.Resample,
		fps: utilsFPS, minFrames: utilsMinFrames, maxFrm: utilsMaxFrames, sample: true,
	}
	if !p.isQwen3() {
		return s
	}
	if v := c.Video; v != nil {
		return videoSettings{
			patch: v.PatchSize, merge: v.MergeSize, tau: v.TemporalPatchSize,
			minPx: v.MinPixels, maxPx: v.MaxPixels, mean: v.ImageMean, std: v.ImageStd,
			rescale: v.RescaleFactor, doRescale: v.DoRescale, doNorm: v.DoNormalize, resample: v.Resample,
			fps: v.FPS, minFrames: v.MinFrames, maxFrm: v.MaxFrames, sample: v.DoSampleFrames,
		}
	}
	s.minPx, s.maxPx = videoClassMinPix, videoClassMaxPix
	return s
}

// PlanVideo implements vision.VideoProcessor. Qwen3-VL follows
// Qwen3VLVideoProcessor (fps sampling with a float64 linspace, the T·H·W
// smart_resize, timestamps per temporal group); Qwen2-VL and Qwen2.5-VL
// follow qwen-vl-utils 0.0.10 (an even frame count from a float32
// linspace, per-frame pixel budgets from total_pixels, then the image
// processor's smart_resize; second_per_grid_ts for Qwen2.5-VL).
//
// Overrides: fps or num_frames replace the sampling rate or count (Qwen3-VL
// takes num_frames as is, Qwen2/2.5-VL round it to even); min_pixels and
// max_pixels replace the video processor's bounds (Qwen3-VL: the T·H·W
// budget; Qwen2/2.5-VL: qwen-vl-utils' per-frame bounds); total_pixels is
// qwen-vl-utils' budget and is ignored for Qwen3-VL. More than
// MaxVideoFrames sampled frames, or frames resized beyond
// Options.PixelLimit, are refused with vision.ErrTooLarge. A Qwen3-VL
// configuration with do_sample_frames false and no fps / num_frames
// override takes every frame.
func (p *Processor) PlanVideo(info vision.VideoInfo, o vision.VideoOverrides) (vision.VideoPlan, error) {
	if err := o.Validate(); err != nil {
		return vision.VideoPlan{}, err
	}
	if info.Width <= 0 || info.Height <= 0 || info.Frames < 1 {
		return vision.VideoPlan{}, fmt.Errorf("qwenvl: plan video %dx%d, %d frames: %w", info.Width, info.Height, info.Frames, vision.ErrTooSmall)
	}
	if math.IsNaN(info.FPS) || math.IsInf(info.FPS, 0) {
		info.FPS = 0
	}
	var vp vision.VideoPlan
	var err error
	if p.isQwen3() {
		vp, err = p.planQwen3(info, o)
	} else {
		vp, err = p.planQwen25(info, o)
	}
	if err != nil {
		return vision.VideoPlan{}, err
	}
	if float64(vp.Width)*float64(vp.Height) > float64(p.limit) {
		return vision.VideoPlan{}, fmt.Errorf("qwenvl: plan video %dx%d: frames resized to %dx%d, over the %d-pixel limit: %w",
			info.Width, info.Height, vp.Width, vp.Height, p.limit, vision.ErrTooLarge)
	}
	return vp, nil
}

func (p *Processor) planQwen3(info vision.VideoInfo, o vision.VideoOverrides) (vision.VideoPlan, error) {
	s := p.videoSettings()
	var idx []int
	switch {
	case o.NumFrames > 0:
		if o.NumFrames > MaxVideoFrames {
			return vision.VideoPlan{}, fmt.Errorf("qwenvl: plan video: num_frames %d over %d: %w", o.NumFrames, MaxVideoFrames, vision.ErrTooLarge)
		}
		idx = linspace64(info.Frames-1, o.NumFrames)
	case s.sample || o.FPS > 0:
		fps := s.fps
		if o.FPS > 0 {
			fps = o.FPS
		}
		var err error
		if idx, err = SampleFramesQwen3(info.Frames, info.FPS, fps, s.minFrames, s.maxFrm); err != nil {
			return vision.VideoPlan{}, err
		}
	default:
		idx = make([]int, info.Frames)
		for i := range idx {
			idx[i] = i
		}
	}
	if len(idx) > MaxVideoFrames {
		return vision.VideoPlan{}, fmt.Errorf("qwenvl: plan video: %d sampled frames over %d: %w", len(idx), MaxVideoFrames, vision.ErrTooLarge)
	}
	minPx, maxPx := s.minPx, s.maxPx
	if o.MinPixels > 0 {
		minPx = o.MinPixels
	}
	if o.MaxPixels > 0 {
		maxPx = o.MaxPixels
	}
	h, w, err := SmartResizeVideoQwen3(len(idx), info.Height, info.Width, s.tau, s.patch*s.merge, float64(minPx), float64(maxPx))
	if err != nil {
		return vision.VideoPlan{}, err
	}
	vp := vision.VideoPlan{
		Plan:      videoPlanFor(s, info.Width, info.Height, w, h, len(idx)),
		Indices:   idx,
		SourceFPS: info.FPS,
	}
	vp.Timestamps = groupTimestamps(idx, info.FPS, s.tau)
	return vp, nil
}

// groupTimestamps is Qwen3-VL's time of each temporal group: the indices
// padded with the last one to a multiple of tau, each converted to seconds
// at srcFPS (≤ 0: 24), and the mean of each group's first and last.
func groupTimestamps(idx []int, srcFPS float64, tau int) []float64 {
	if !(srcFPS > 0) {
		srcFPS = DefaultSourceFPS
	}
	n := (len(idx) + tau - 1) / tau
	out := make([]float64, n)
	at := func(i int) float64 { return float64(idx[min(i, len(idx)-1)]) / srcFPS }
	for g := range out {
		out[g] = (at(g*tau) + at(g*tau+tau-1)) / 2
	}
	return out
}

func (p *Processor) planQwen25(info vision.VideoInfo, o vision.VideoOverrides) (vision.VideoPlan, error) {
	s := p.videoSettings()
	if o.NumFrames > MaxVideoFrames {
		return vision.VideoPlan{}, fmt.Errorf("qwenvl: plan video: num_frames %d over %d: %w", o.NumFrames, MaxVideoFrames, vision.ErrTooLarge)
	}
	req := VideoRequestQwen25{NFrames: o.NumFrames, FPS: o.FPS, MinPixels: o.MinPixels, MaxPixels: o.MaxPixels, TotalPixels: o.TotalPixels}
	idx, sampleFPS, err := SampleFramesQwen25(info.Frames, info.FPS, req)
	if err != nil {
		return vision.VideoPlan{}, err
	}
	first, final, err := VideoFrameSizeQwen25(len(idx), info.Height, info.Width, req, s.minPx, s.maxPx)
	if err != nil {
		return vision.VideoPlan{}, err
	}
	vp := vision.VideoPlan{
		Plan:      videoPlanFor(s, info.Width, info.Height, final[1], final[0], len(idx)),
		Indices:   idx,
		SourceFPS: info.FPS,
		SampleFPS: sampleFPS,
	}
	if first != final {
		vp.FirstWidth, vp.FirstHeight = first[1], first[0]
	}
	if p.cfg.ModelType == ModelQwen25VL {
		vp.SecondPerGridTS = SecondPerGridTS(s.tau, sampleFPS)
	}
	return vp, nil
}

// videoPlanFor is the grid of n frames resized to w×h, padded in time to a
// multiple of tau.
func videoPlanFor(s videoSettings, srcW, srcH, w, h, n int) vision.Plan {
	gt := (n + s.tau - 1) / s.tau
	gh, gw := h/s.patch, w/s.patch
	rows := gt * gh * gw
	return vision.Plan{
		SourceWidth: srcW, SourceHeight: srcH,
		Width: w, Height: h,
		GridT: gt, GridH: gh, GridW: gw,
		Tokens: rows / (s.merge * s.merge),
		Rows:   rows, Cols: 3 * s.tau * s.patch * s.patch,
	}
}

// checkVideoPlan verifies that plan is one this processor could have made.
func (p *Processor) checkVideoPlan(plan vision.VideoPlan, s videoSettings) error {
	n := len(plan.Indices)
	if n < 1 || n > MaxVideoFrames {
		return fmt.Errorf("plan has %d frames: %w", n, vision.ErrBadInput)
	}
	f := s.patch * s.merge
	if plan.Width <= 0 || plan.Height <= 0 || plan.Width%f != 0 || plan.Height%f != 0 {
		return fmt.Errorf("planned size %dx%d is not a positive multiple of %d: %w", plan.Width, plan.Height, f, vision.ErrBadInput)
	}
	if float64(plan.Width)*float64(plan.Height) > float64(p.limit) ||
		float64(plan.FirstWidth)*float64(plan.FirstHeight) > float64(p.limit) ||
		plan.FirstWidth < 0 || plan.FirstHeight < 0 || (plan.FirstWidth == 0) != (plan.FirstHeight == 0) {
		return fmt.Errorf("planned sizes %dx%d / %dx%d: %w", plan.FirstWidth, plan.FirstHeight, plan.Width, plan.Height, vision.ErrBadInput)
	}
	if want := videoPlanFor(s, plan.SourceWidth, plan.SourceHeight, plan.Width, plan.Height, n); want != plan.Plan {
		return fmt.Errorf("plan %+v is inconsistent (want %+v): %w", plan.Plan, want, vision.ErrBadInput)
	}
	return nil
}

// StartVideo implements vision.VideoProcessor. The sink resizes each frame
// as it arrives (in parallel when Frame is called concurrently) and writes
// each temporal group's rows as soon as its frames are resized, so at most a
// few resized frames are held at a time when frames arrive in order.
func (p *Processor) StartVideo(plan vision.VideoPlan, dt tensor.DType, dst []byte) (vision.VideoSink, error) {
	s := p.videoSettings()
	if !dt.IsFloat() {
		return nil, fmt.Errorf("qwenvl: video: dtype %v: %w", dt, vision.ErrUnsupported)
	}
	if err := p.checkVideoPlan(plan, s); err != nil {
		return nil, fmt.Errorf("qwenvl: video: %w", err)
	}
	if want := plan.Bytes(dt); len(dst) != want {
		return nil, fmt.Errorf("qwenvl: video: dst is %d bytes, want %d: %w", len(dst), want, vision.ErrBadInput)
	}
	n := len(plan.Indices)
	vs := &videoSink{
		p: p, plan: plan, dt: dt, dst: dst,
		l:       layout{p: s.patch, m: s.merge, tau: s.tau, gh: plan.GridH, gw: plan.GridW},
		table:   p.table,
		filter:  resample.Filter(s.resample),
		slots:   make([]*imaging.RGB, n),
		arrived: make([]bool, n),
		written: make([]bool, plan.GridT),
	}
	if s.mean != p.cfg.ImageMean || s.std != p.cfg.ImageStd || s.rescale != p.cfg.RescaleFactor ||
		s.doRescale != p.cfg.DoRescale || s.doNorm != p.cfg.DoNormalize {
		vs.table = norm.New(norm.Params{Rescale: s.rescale, Mean: s.mean, Std: s.std, DoRescale: s.doRescale, DoNormalize: s.doNorm})
	}
	vs.aff, vs.stream = affineOf(vs.table), streams(len(dst))
	if dt.Size() == 2 {
		vs.k16 = kernel16For(vs.table.Bits16(dt), vs.l)
	}
	return vs, nil
}

// videoSink is StartVideo's vision.VideoSink.
type videoSink struct {
	p      *Processor
	plan   vision.VideoPlan
	dt     tensor.DType
	dst    []byte
	l      layout
	table  *norm.Table
	aff    *affine  // table's constants for the float32 kernel, or nil
	stream bool     // dst is written with streaming stores (streams)
	k16    kernel16 // table's 16-bit kernel, for a 16-bit dt
	filter resample.Filter

	mu      sync.Mutex
	slots   []*imaging.RGB // resized frames waiting for their group
	arrived []bool
	written []bool
	groups  int            // groups written
	free    []*imaging.RGB // planned-size images to reuse

	resize, patchify atomic.Int64 // nanoseconds
}

// Frame implements vision.VideoSink.
func (v *videoSink) Frame(ctx context.Context, k int, frame *imaging.RGB) error {
	if k < 0 || k >= len(v.slots) {
		return fmt.Errorf("qwenvl: video frame %d of %d: %w", k, len(v.slots), vision.ErrBadInput)
	}
	if frame == nil {
		return fmt.Errorf("qwenvl: video frame %d: nil: %w", k, vision.ErrBadInput)
	}
	if err := frame.Validate(); err != nil {
		return fmt.Errorf("qwenvl: video frame %d: %v: %w", k, err, vision.ErrBadInput)
	}
	if frame.Width != v.plan.SourceWidth || frame.Height != v.plan.SourceHeight {
		return fmt.Errorf("qwenvl: video frame %d is %dx%d, plan is for %dx%d: %w",
			k, frame.Width, frame.Height, v.plan.SourceWidth, v.plan.SourceHeight, vision.ErrBadInput)
	}
	v.mu.Lock()
	dup := v.arrived[k]
	v.arrived[k] = true
	v.mu.Unlock()
	if dup {
		return fmt.Errorf("qwenvl: video frame %d given twice: %w", k, vision.ErrBadInput)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t0 := time.Now()
	resized, err := v.resizeFrame(ctx, frame)
	if err != nil {
		return fmt.Errorf("qwenvl: video frame %d: resize: %w", k, err)
	}
	v.resize.Add(int64(time.Since(t0)))

	// Store the frame; take its group if all the group's frames are in.
	tau, n := v.l.tau, len(v.slots)
	g := k / tau
	v.mu.Lock()
	v.slots[k] = resized
	var group []*imaging.RGB
	if !v.written[g] {
		group = make([]*imaging.RGB, tau)
		for ti := range tau {
			if group[ti] = v.slots[min(g*tau+ti, n-1)]; group[ti] == nil {
				group = nil
				break
			}
		}
		if group != nil {
			v.written[g] = true
		}
	}
	v.mu.Unlock()
	if group == nil {
		return nil
	}
	t0 = time.Now()
	v.writeGroup(g, group)
	v.patchify.Add(int64(time.Since(t0)))
	v.mu.Lock()
	for ti := range tau {
		i := min(g*tau+ti, n-1)
		if v.slots[i] != nil {
			v.free = append(v.free, v.slots[i])
		}
		v.slots[i] = nil
	}
	v.groups++
	v.mu.Unlock()
	return nil
}

// image returns a planned-size image to resize into, reused when one is free.
func (v *videoSink) image() *imaging.RGB {
	v.mu.Lock()
	defer v.mu.Unlock()
	if n := len(v.free); n > 0 {
		img := v.free[n-1]
		v.free = v.free[:n-1]
		return img
	}
	return imaging.NewRGB(v.plan.Width, v.plan.Height)
}

// resizeFrame resizes to the planned size (through FirstWidth×FirstHeight
// when the plan has one) into an image of the sink's own; a frame that
// already has the size is copied, since the caller may reuse it.
func (v *videoSink) resizeFrame(ctx context.Context, frame *imaging.RGB) (*imaging.RGB, error) {
	cur := frame
	if v.plan.FirstWidth != 0 && (cur.Width != v.plan.FirstWidth || cur.Height != v.plan.FirstHeight) {
		next := imaging.NewRGB(v.plan.FirstWidth, v.plan.FirstHeight)
		if err := v.p.resizer.ResizeInto(ctx, next, cur, v.filter); err != nil {
			return nil, err
		}
		cur = next
	}
	if cur.Width != v.plan.Width || cur.Height != v.plan.Height {
		next := v.image()
		if err := v.p.resizer.ResizeInto(ctx, next, cur, v.filter); err != nil {
			return nil, err
		}
		cur = next
	}
	if cur == frame {
		cur = v.image()
		copy(cur.Pix, frame.Pix)
	}
	return cur, nil
}

// writeGroup normalizes and patchifies temporal group g into its rows.
func (v *videoSink) writeGroup(g int, frames []*imaging.RGB) {
	rowsPer := v.l.gh * v.l.gw
	es := v.dt.Size()
	bytesPer := rowsPer * v.l.cols() * es
	out := v.dst[g*bytesPer : (g+1)*bytesPer]
	if es == 4 {
		patchifyGroup32Auto(out, frames, v.l, v.table.Bits32(), v.aff, v.stream)
	} else {
		patchifyGroup16Auto(out, frames, v.l, v.k16)
	}
}

// Finish implements vision.VideoSink.
func (v *videoSink) Finish() (vision.VideoTimings, error) {
	tm := vision.VideoTimings{Resize: time.Duration(v.resize.Load()), NormalizePatchify: time.Duration(v.patchify.Load())}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.groups != len(v.written) {
		return tm, fmt.Errorf("qwenvl: video: %d of %d temporal groups written: %w", v.groups, len(v.written), vision.ErrBadInput)
	}
	return tm, nil
}

// ProcessVideo implements vision.VideoProcessor: frames are the sampled
// frames in plan order, processed on up to Options.Workers goroutines.
func (p *Processor) ProcessVideo(ctx context.Context, frames []*imaging.RGB, plan vision.VideoPlan, dt tensor.DType, dst []byte) (vision.VideoTimings, error) {
	if len(frames) != len(plan.Indices) {
		return vision.VideoTimings{}, fmt.Errorf("qwenvl: video: %d frames for a %d-frame plan: %w", len(frames), len(plan.Indices), vision.ErrBadInput)
	}
	sink, err := p.StartVideo(plan, dt, dst)
	if err != nil {
		return vision.VideoTimings{}, err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.workers)
	for k, f := range frames {
		g.Go(func() error { return sink.Frame(gctx, k, f) })
	}
	if err := g.Wait(); err != nil {
		return vision.VideoTimings{}, err
	}
	return sink.Finish()
}
