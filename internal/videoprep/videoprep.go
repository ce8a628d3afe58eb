package videoprep

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/media/video"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// Allocator returns a destination of exactly nbytes bytes (the same contract
// as imageprep's).
type Allocator = imageprep.Allocator

// Options configure a Preprocessor.
type Options struct {
	Decoder   *video.Decoder        // required
	Processor vision.VideoProcessor // required

	// Concurrency bounds how many videos are processed at the same time
	// across all callers. 0 means 1.
	Concurrency int
	// Workers bounds how many frames of one video are resized and
	// patchified at the same time. 0 means GOMAXPROCS.
	Workers int
	// Run, when not nil, runs each frame's resize and patchify (for
	// example on a cpupool.Pool, whose low-priority threads leave the CPU
	// to FFmpeg's decoding, the critical path, and to latency-sensitive
	// work). It returns an error only when it did not run the function.
	Run func(ctx context.Context, f func()) error
	// CountFirst always counts the frames with a decoding pass before
	// planning. By default a container that declares its frame count (MP4,
	// AVI) is planned from that count and decoded once, the decode counting
	// the frames too; a differing count (or a plan the declared count makes
	// fail) falls back to counting first. Both give the same result.
	CountFirst bool
}

// Preprocessor runs the video pipeline. It is safe for concurrent use.
type Preprocessor struct {
	dec     *video.Decoder
	proc    vision.VideoProcessor
	sem     chan struct{}
	workers int
	count   bool
	exec    func(ctx context.Context, f func()) error // Options.Run, or a call on the spot
}

// New checks o and builds a Preprocessor.
func New(o Options) (*Preprocessor, error) {
	if o.Decoder == nil || o.Processor == nil {
		return nil, fmt.Errorf("videoprep: a Decoder and a Processor are required: %w", ErrOptions)
	}
	if o.Concurrency < 0 || o.Workers < 0 {
		return nil, fmt.Errorf("videoprep: concurrency %d, workers %d: %w", o.Concurrency, o.Workers, ErrOptions)
	}
	n := max(o.Concurrency, 1)
	w := o.Workers
	if w == 0 {
		w = runtime.GOMAXPROCS(0)
	}
	exec := o.Run
	if exec == nil {
		exec = func(_ context.Context, f func()) error { f(); return nil }
	}
	return &Preprocessor{dec: o.Decoder, proc: o.Processor, sem: make(chan struct{}, n), workers: w, count: o.CountFirst, exec: exec}, nil
}

// Request is one video to preprocess.
type Request struct {
	Data      []byte                // the encoded file
	Overrides vision.VideoOverrides // per-request settings (zero: model defaults)
	DType     tensor.DType          // output dtype; zero means Float32
	Alloc     Allocator             // nil means imageprep.HeapAllocator
	// Release, when not nil, is given back a buffer from Alloc that the
	// call no longer needs (a plan from the container's declared frame
	// count that the decode proved wrong). The buffer in a returned Result
	// is never released by the call.
	Release func([]byte)
	// Probed, when set, is the stream as Plan probed it (every frame
	// counted) for these bytes: the call plans from it and decodes once,
	// without reading the headers or counting again.
	Probed *video.Info
}

// Timings are the wall times of one call's stages; Resize and
// NormalizePatchify are summed over frames processed in parallel with the
// decode, so they overlap Decode.
type Timings struct {
	Probe             time.Duration // headers + counting the frames
	Decode            time.Duration // the decode pass, including the processing it overlaps
	Resize            time.Duration
	NormalizePatchify time.Duration
}

// Result describes the pixel_values_videos written into Data.
type Result struct {
	Info    video.Info       // the probed stream
	Plan    vision.VideoPlan // sampled indices, grid, tokens, timing metadata
	DType   tensor.DType
	Data    []byte // Plan.Bytes(DType) bytes from the Allocator
	Timings Timings
}

// GridTHW is the video_grid_thw row.
func (r *Result) GridTHW() [3]int64 { return r.Plan.GridTHW() }

// Tokens is the number of video pad tokens.
func (r *Result) Tokens() int { return r.Plan.Tokens }

// Shape is the pixel_values_videos shape (Plan.Shape).
func (r *Result) Shape() []int { return r.Plan.Shape() }

// Plan opens and probes req.Data and plans it without decoding any frame
// for processing (the probe does decode every frame once to count them).
func (p *Preprocessor) Plan(ctx context.Context, data []byte, o vision.VideoOverrides) (video.Info, vision.VideoPlan, error) {
	v, err := p.dec.Open(data)
	if err != nil {
		return video.Info{}, vision.VideoPlan{}, stageErr(StageDecode, err)
	}
	defer v.Close()
	info, err := v.Probe(ctx)
	if err != nil {
		return video.Info{}, vision.VideoPlan{}, stageErr(StageDecode, err)
	}
	plan, err := p.proc.PlanVideo(videoInfo(info), o)
	if err != nil {
		return info, vision.VideoPlan{}, stageErr(StagePlan, err)
	}
	return info, plan, nil
}

func videoInfo(i video.Info) vision.VideoInfo {
	return vision.VideoInfo{Width: i.Width, Height: i.Height, Frames: i.Frames, FPS: i.FPS}
}

// Video decodes, plans and processes req.Data. On error the returned error
// is an *Error naming the stage (or the context's error when ctx ended while
// waiting for a slot). When the failure comes after allocation, the
// returned Result is not nil and its Data is the allocated buffer, so that
// the caller can release it; otherwise the Result is nil.
func (p *Preprocessor) Video(ctx context.Context, req Request) (*Result, error) {
	dt, alloc, err := imageprep.Destination(req.DType, req.Alloc)
	if err != nil {
		return nil, stageErr(StageProcess, err)
	}
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.sem }()

	v, err := p.dec.Open(req.Data)
	if err != nil {
		return nil, stageErr(StageDecode, err)
	}
	defer v.Close()
	t0 := time.Now()
	// The decoding child starts now and gets ready while the headers are
	// probed; it waits for the plan's frame selection.
	dec, err := v.Start(ctx)
	if err != nil {
		return nil, stageErr(StageDecode, err)
	}
	defer func() {
		if dec != nil {
			dec.Close()
		}
	}()
	info, speculative, err := p.startInfo(ctx, v, req.Probed)
	if err != nil {
		return nil, stageErr(StageDecode, err)
	}
	var probeTime, decodeTime time.Duration
	probeTime = time.Since(t0)
	redone := false
	for {
		res, err := p.run(ctx, v, dec, info, req, dt, alloc)
		dec = nil
		if res != nil {
			decodeTime += res.Timings.Decode
			res.Timings.Probe, res.Timings.Decode = probeTime, decodeTime
		}
		// A decode that left out unsampled pictures and did not add up is
		// repeated once, from the container.
		if errors.Is(err, video.ErrRedo) && !redone && ctx.Err() == nil {
			redone = true
			release(req, res)
			continue
		}
		if !speculative {
			return res, err
		}
		// A plan from the declared count stands only if the decode counted
		// as many frames. Otherwise count first and start again.
		var decoded int
		switch {
		case err == nil:
			return res, nil
		case errors.Is(err, video.ErrFrameCount) && res != nil && res.Info.Frames > 0:
			decoded = res.Info.Frames
		case StageOf(err) == StagePlan:
			t1 := time.Now()
			ci, perr := v.Probe(ctx)
			probeTime += time.Since(t1)
			if perr != nil {
				return nil, stageErr(StageDecode, perr)
			}
			if ci.Frames == info.Frames {
				return res, err
			}
			decoded = ci.Frames
		default:
			return res, err
		}
		release(req, res)
		speculative = false
		info.Frames = decoded
	}
}

// release gives a discarded result's buffer back to the caller.
func release(req Request, res *Result) {
	if res != nil && res.Data != nil && req.Release != nil {
		req.Release(res.Data)
	}
}

// startInfo is the stream to plan from first: the caller's probe, else
// the headers' declared frame count (speculative: the decode checks it),
// else a counting probe.
func (p *Preprocessor) startInfo(ctx context.Context, v *video.Video, probed *video.Info) (video.Info, bool, error) {
	if probed != nil {
		return *probed, false, nil
	}
	info, err := v.Header(ctx)
	if err != nil {
		return video.Info{}, false, err
	}
	if !p.count && info.DeclaredFrames > 0 {
		info.Frames = info.DeclaredFrames
		return info, true, nil
	}
	info, err = v.Probe(ctx)
	return info, false, err
}

// run plans info, allocates, and decodes and processes the sampled frames
// with dec (started here when nil), which it closes. On ErrFrameCount, the
// returned Result's Info.Frames is the decoded count.
func (p *Preprocessor) run(ctx context.Context, v *video.Video, dec *video.Decoding, info video.Info, req Request, dt tensor.DType, alloc Allocator) (*Result, error) {
	if dec == nil {
		var err error
		if dec, err = v.Start(ctx); err != nil {
			return nil, stageErr(StageDecode, err)
		}
	}
	defer dec.Close()
	res := &Result{Info: info, DType: dt}
	plan, err := p.proc.PlanVideo(videoInfo(info), req.Overrides)
	if err != nil {
		return nil, stageErr(StagePlan, err)
	}
	res.Plan = plan
	n := plan.Bytes(dt)
	buf, err := alloc(n)
	if err != nil {
		return nil, stageErr(StageAllocate, err)
	}
	if len(buf) != n {
		return nil, stageErr(StageAllocate, fmt.Errorf("%w: got %d bytes, want %d", imageprep.ErrAllocation, len(buf), n))
	}
	res.Data = buf
	// Back the destination with memory while the first frames decode, at
	// the frame work's priority; stopped (or never started) once the call
	// is over.
	fctx, stopFault := context.WithCancel(ctx)
	faulted := make(chan struct{})
	go func() {
		defer close(faulted)
		_ = p.exec(fctx, func() { prefault(buf, fctx.Done()) })
	}()
	defer func() {
		stopFault()
		<-faulted
	}()
	sink, err := p.proc.StartVideo(plan, dt, buf)
	if err != nil {
		return res, stageErr(StageProcess, err)
	}
	t0 := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.workers)
	stop := context.AfterFunc(gctx, dec.Cancel) // a failed frame stops the decode
	defer stop()
	decoded, derr := dec.Frames(info, plan.Indices, func(k int, f *imaging.RGB) error {
		if err := gctx.Err(); err != nil {
			return err
		}
		g.Go(func() error {
			var ferr error
			if err := p.exec(gctx, func() { ferr = sink.Frame(gctx, k, f) }); err != nil {
				return err
			}
			dec.Recycle(f.Pix) // the sink keeps no frame it was given
			return ferr
		})
		return nil
	})
	perr := g.Wait()
	res.Timings.Decode = time.Since(t0)
	if errors.Is(derr, video.ErrFrameCount) && ctx.Err() == nil {
		res.Info.Frames = decoded
		return res, stageErr(StageDecode, derr)
	}
	if derr != nil || perr != nil {
		return res, framesErr(ctx, derr, perr)
	}
	tm, err := sink.Finish()
	res.Timings.Resize, res.Timings.NormalizePatchify = tm.Resize, tm.NormalizePatchify
	if err != nil {
		return res, stageErr(StageProcess, err)
	}
	return res, nil
}

// framesErr is run's error when decoding (derr) or processing (perr) the
// frames failed: the call's own cancellation first, then the failure that
// is not the other's cancellation, processing before decoding.
func framesErr(ctx context.Context, derr, perr error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if perr != nil && !errors.Is(perr, context.Canceled) {
		return stageErr(StageProcess, perr)
	}
	if derr != nil && !errors.Is(derr, context.Canceled) {
		return stageErr(StageDecode, derr)
	}
	return stageErr(StageProcess, errors.Join(perr, derr))
}
