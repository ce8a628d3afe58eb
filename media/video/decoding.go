package video

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"

	"github.com/mmgate/mmgate/imaging"
)

// FrameFunc receives the k-th sampled frame (k counts from 0 in the order
// of the indices; its source index is indices[k]). The frame belongs to the
// callee, which may give its pixels back with Decoding.Recycle.
type FrameFunc func(k int, frame *imaging.RGB) error

// The child's extra descriptors: 3 is the input (Video.command), then the
// progress pipe and the pipe the frame selection arrives on.
const (
	fdProgress = 4
	fdSelect   = 5
)

// Decoding is one FFmpeg pass over a Video whose frame selection comes
// later. Start runs the child at once, so that FFmpeg loads its libraries,
// opens the input and reads the stream headers while the caller probes and
// plans (about 0.1 s that would otherwise come before the first frame);
// Frames hands it the selection and streams the sampled frames. The child
// reads the selection as its output's filter script (-filter_script:v on
// fd 5), which FFmpeg opens only after the input. A Decoding belongs to one
// goroutine; Close must be called, after Frames too.
type Decoding struct {
	v         *Video
	parent    context.Context
	mu        sync.Mutex         // guards cancel and cancelled for Cancel, from any goroutine
	cancel    context.CancelFunc // kills the child
	cancelled bool               // Cancel was called
	cmd       *exec.Cmd
	sel       *os.File      // write end of the selection pipe; nil once handed over
	out       io.ReadCloser // the child's stdout
	stderr    *tailBuffer
	progress  chan int // the last frame count of the progress report, once
	used      bool     // Frames was called
	ended     bool     // the child was reaped
	// The child reads an elementary stream (h264_skip.go) from its stdin
	// rather than the container: es says so, feed is the pipe's write end
	// until Frames hands it to the goroutine that writes the stream, fed
	// is closed when that goroutine is done.
	es   bool
	feed *os.File
	fed  chan struct{}
	// spare holds frame buffers given back with Recycle, for the next
	// frames to be read into: a frame read into fresh memory faults in
	// every page while FFmpeg waits for the pipe to drain.
	spareMu sync.Mutex
	spare   [][]byte
}

// maxSpare bounds the buffers Recycle keeps: about as many frames as are
// processed at a time.
const maxSpare = 8

// Recycle gives back the pixels of a frame that Frames handed out and
// that nothing reads or writes any more; later frames may be read into
// them. It may be called from any goroutine, also after Frames returned.
func (d *Decoding) Recycle(pix []uint8) {
	d.spareMu.Lock()
	if len(d.spare) < maxSpare {
		d.spare = append(d.spare, pix)
	}
	d.spareMu.Unlock()
}

// frameBuffer is a buffer of n bytes, a recycled one when there is one.
func (d *Decoding) frameBuffer(n int) []byte {
	d.spareMu.Lock()
	defer d.spareMu.Unlock()
	for len(d.spare) > 0 {
		b := d.spare[len(d.spare)-1]
		d.spare = d.spare[:len(d.spare)-1]
		if cap(b) >= n {
			return b[:n]
		}
	}
	return make([]byte, n)
}

// Start starts a decoding child that waits for its frame selection. The
// child is killed when ctx ends or Close is called first.
func (v *Video) Start(ctx context.Context) (*Decoding, error) {
	return v.start(ctx, v.skip != nil && !v.full.Load())
}

// start starts the child on the container or, when es, on the elementary
// stream Frames writes to its stdin.
func (v *Video) start(ctx context.Context, es bool) (*Decoding, error) {
	bin := v.d.o.FFmpeg
	args := []string{"-v", "error", "-hide_banner", "-nostdin", "-stats_period", "100000", "-progress", fmt.Sprintf("pipe:%d", fdProgress)}
	if t := v.d.o.Threads; t > 0 {
		args = append(args, "-threads", fmt.Sprint(t))
	}
	// One decode feeds two outputs: every frame to a null muxer, whose frame
	// count the progress report gives, and the selected frames, converted to
	// rgb24, to stdout.
	input := []string{"-protocol_whitelist", "file", "-f", v.container, "-i", v.path}
	if es {
		input = []string{"-protocol_whitelist", "pipe", "-f", "h264", "-i", "pipe:0"}
	}
	args = append(args, input...)
	args = append(args, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "null", "-",
		"-map", "0:v:0", "-filter_script:v", childFD(fdSelect), "-fps_mode", "passthrough",
		"-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1")
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("video: decode: progress pipe: %v: %w", err, ErrUnavailable)
	}
	sr, sw, err := os.Pipe()
	if err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("video: decode: selection pipe: %v: %w", err, ErrUnavailable)
	}
	var er *os.File
	cctx, cancel := context.WithCancel(ctx)
	d := &Decoding{v: v, parent: ctx, cancel: cancel, sel: sw, stderr: &tailBuffer{max: 4096}, progress: make(chan int, 1), es: es}
	fail := func(err error) (*Decoding, error) {
		cancel()
		for _, f := range []*os.File{pr, pw, sr, sw, er, d.feed} {
			if f != nil {
				f.Close()
			}
		}
		return nil, err
	}
	if es {
		if er, d.feed, err = os.Pipe(); err != nil {
			return fail(fmt.Errorf("video: decode: stream pipe: %v: %w", err, ErrUnavailable))
		}
	}
	d.cmd = v.command(cctx, bin, args)
	d.cmd.ExtraFiles = append(d.cmd.ExtraFiles, pw, sr)
	d.cmd.Stderr = d.stderr
	if er != nil {
		d.cmd.Stdin = er
	}
	if d.out, err = d.cmd.StdoutPipe(); err != nil {
		return fail(fmt.Errorf("video: decode: %s: %v: %w", bin, err, ErrUnavailable))
	}
	if f, ok := d.out.(*os.File); ok {
		growPipe(f, v.d.pipeSize)
	}
	if err := d.cmd.Start(); err != nil {
		return fail(fmt.Errorf("video: decode: %w", runErr(cctx, bin, err, d.stderr)))
	}
	pw.Close()
	sr.Close()
	if er != nil {
		er.Close()
	}
	go func() {
		d.progress <- readProgress(pr)
		pr.Close()
	}()
	return d, nil
}

// Cancel kills the child; Frames then returns an error. Unlike the other
// methods it may be called from any goroutine, any number of times.
func (d *Decoding) Cancel() {
	d.mu.Lock()
	cancel := d.cancel
	d.cancelled = true
	d.mu.Unlock()
	cancel()
}

// Close kills the child unless Frames already reaped it, and waits for it.
func (d *Decoding) Close() {
	if d.ended {
		return
	}
	d.cancel()
	d.wait()
}

// wait closes the selection pipe if still open, reaps the child and returns
// its exit error and the frame count it last reported (-1 if none).
func (d *Decoding) wait() (frames int, err error) {
	if d.sel != nil {
		d.sel.Close()
		d.sel = nil
	}
	if d.feed != nil {
		d.feed.Close()
		d.feed = nil
	}
	err = d.cmd.Wait()
	if d.fed != nil {
		<-d.fed // the child's end of the pipe is closed: the writer stops
	}
	frames = <-d.progress
	d.ended = true
	d.cancel()
	return frames, err
}

// selection checks indices against info and the limits and returns them
// without repeats.
func (v *Video) selection(info Info, indices []int) ([]int, error) {
	if len(indices) > v.d.o.MaxFrames {
		return nil, fmt.Errorf("video: decode: %d sampled frames, limit %d: %w", len(indices), v.d.o.MaxFrames, ErrTooLarge)
	}
	if err := v.checkLimits(info); err != nil {
		return nil, fmt.Errorf("video: decode: %w", err)
	}
	distinct := make([]int, 0, len(indices))
	for i, n := range indices {
		if n < 0 || n >= info.Frames || (i > 0 && n < indices[i-1]) {
			return nil, fmt.Errorf("video: decode: index %d at %d is out of order or outside [0, %d): %w", n, i, info.Frames, ErrUnsupported)
		}
		if i == 0 || n != indices[i-1] {
			distinct = append(distinct, n)
		}
	}
	return distinct, nil
}

// filterScript is the output filter keeping the distinct sorted indices of
// a stream of frames frames.
func filterScript(distinct []int, frames int) string {
	switch {
	case len(distinct) == 0:
		return "select=0" // count only
	case len(distinct) < frames:
		return selectExpr(distinct)
	default:
		return "null"
	}
}

// Frames hands the child its selection, then calls fn for each of the
// sampled source frame indices, in order, and returns the number of frames
// decoded. Every frame is decoded (codecs need their references; the
// skipping decode leaves out the unsampled pictures none references), but
// only the sampled ones are converted to rgb24. indices must be sorted and
// below info.Frames; repeated indices yield the same frame again. fn runs
// on the calling goroutine; an error from fn stops decoding and is
// returned as is. Frames may be called once.
//
// When the decoded count differs from info.Frames the error wraps
// ErrFrameCount and the count is returned, so that a caller that planned
// from Info.DeclaredFrames can plan again; fn may then have been called
// for some frames, or for all of them. ErrRedo asks for the same call
// again, on a new Decoding.
func (d *Decoding) Frames(info Info, indices []int, fn FrameFunc) (int, error) {
	if d.used || d.ended {
		return 0, fmt.Errorf("video: decode: Frames called twice: %w", ErrUnavailable)
	}
	d.used = true
	distinct, err := d.v.selection(info, indices)
	if err != nil {
		d.Close()
		return 0, err
	}
	return d.frames(info, indices, distinct, fn)
}

// frames is Frames after the selection was checked; distinct is indices
// without repeats.
func (d *Decoding) frames(info Info, indices, distinct []int, fn FrameFunc) (int, error) {
	skip, err := d.hand(info, distinct)
	if err != nil {
		return 0, err
	}
	got, ferr, fnFailed := d.read(info, indices, distinct, fn)
	if ferr != nil {
		d.cancel()
	}
	decoded, werr := d.wait()
	if d.es {
		if fnFailed {
			return decoded, ferr
		}
		return d.esResult(info, skip, decoded, got, len(distinct), ferr, werr)
	}
	switch {
	case d.parent.Err() != nil:
		return decoded, d.parent.Err()
	case ferr != nil:
		return decoded, ferr
	case werr != nil:
		return decoded, fmt.Errorf("video: decode: %w", runErr(d.parent, d.v.d.o.FFmpeg, werr, d.stderr))
	case decoded < 0:
		return 0, fmt.Errorf("video: decode: %s: no frame count reported: %w", d.v.d.o.FFmpeg, ErrCorrupt)
	case decoded != info.Frames:
		return decoded, fmt.Errorf("video: decode: %d frames decoded, %d expected: %w", decoded, info.Frames, ErrFrameCount)
	case got != len(distinct):
		return decoded, fmt.Errorf("video: decode: %d of %d sampled frames: %w", got, len(distinct), ErrCorrupt)
	}
	return decoded, nil
}

// hand gives the child its selection and, when it reads the elementary
// stream, starts writing the stream; it returns the pictures left out.
func (d *Decoding) hand(info Info, distinct []int) (skipPlan, error) {
	if d.es && info.Frames != len(d.v.skip.samples) {
		// Planned from another count than the container's: decode from the
		// container, whose count the decode then checks.
		if err := d.restart(); err != nil {
			return skipPlan{}, err
		}
	}
	script := filterScript(distinct, info.Frames)
	var skip skipPlan
	if d.es {
		skip = d.v.skip.plan(distinct)
		script = filterScript(skip.indices, info.Frames-skip.dropped)
		feed := d.feed
		d.feed, d.fed = nil, make(chan struct{})
		go func() {
			defer close(d.fed)
			// An error here ends the stream early; the frame count or the
			// child's exit status reports it.
			_ = d.v.skip.writeStream(feed, d.v.f, skip.drop)
			feed.Close()
		}()
	}
	// A write error means the child is gone; its exit status says why.
	_, _ = io.WriteString(d.sel, script)
	d.sel.Close()
	d.sel = nil
	return skip, nil
}

// restart replaces the child with one that decodes from the container.
func (d *Decoding) restart() error {
	nd, err := d.v.start(d.parent, false)
	d.Close()
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.cancel = nd.cancel
	if d.cancelled {
		nd.cancel()
	}
	d.mu.Unlock()
	d.cmd, d.sel, d.out, d.stderr, d.progress = nd.cmd, nd.sel, nd.out, nd.stderr, nd.progress
	d.ended, d.es, d.feed, d.fed = false, false, nil, nil
	return nil
}

// read reads the selected frames from the child's stdout and calls fn for
// each sampled index; got counts the distinct frames read, fnFailed says
// ferr is fn's.
func (d *Decoding) read(info Info, indices, distinct []int, fn FrameFunc) (got int, ferr error, fnFailed bool) {
	frameBytes := info.Width * info.Height * 3
	k := 0
	for ferr == nil {
		buf := d.frameBuffer(frameBytes)
		n, err := io.ReadFull(d.out, buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			if n > 0 && err == io.ErrUnexpectedEOF {
				ferr = fmt.Errorf("video: decode: truncated frame (%d of %d bytes): %w", n, frameBytes, ErrCorrupt)
			} else {
				ferr = fmt.Errorf("video: decode: read: %v: %w", err, ErrCorrupt)
			}
			break
		}
		if got >= len(distinct) {
			ferr = fmt.Errorf("video: decode: more frames than the %d selected: %w", len(distinct), ErrCorrupt)
			break
		}
		src := distinct[got]
		got++
		// Repeated indices get copies of the frame, made before fn owns it.
		reps := 0
		for k+reps < len(indices) && indices[k+reps] == src {
			reps++
		}
		frames := make([]*imaging.RGB, reps)
		for i := range frames {
			pix := buf
			if i > 0 {
				pix = append([]uint8(nil), buf...)
			}
			frames[i] = &imaging.RGB{Pix: pix, Width: info.Width, Height: info.Height}
		}
		for _, f := range frames {
			if ferr = fn(k, f); ferr != nil {
				return got, ferr, true
			}
			k++
		}
	}
	return got, ferr, false
}

// esResult is the outcome of a decode from the elementary stream that fn
// did not stop: any failure but the context's (the container's decode
// reports its own) makes the Video decode from the container from
// now on and asks the caller to repeat the call.
func (d *Decoding) esResult(info Info, skip skipPlan, decoded, got, want int, ferr, werr error) (int, error) {
	if err := d.parent.Err(); err != nil {
		return decoded, err
	}
	if ferr == nil && werr == nil && decoded == info.Frames-skip.dropped && got == want {
		return info.Frames, nil
	}
	d.v.full.Store(true)
	why := fmt.Sprintf("%d frames decoded, %d expected", decoded, info.Frames-skip.dropped)
	if err := errors.Join(ferr, werr); err != nil {
		why = err.Error()
	}
	return decoded, fmt.Errorf("video: decode without %d unsampled non-reference pictures: %s: %w", skip.dropped, why, ErrRedo)
}

// Decode decodes the stream once and calls fn for each of the sampled
// source frame indices, as Frames does; it is Start followed by Frames.
func (v *Video) Decode(ctx context.Context, info Info, indices []int, fn FrameFunc) (int, error) {
	distinct, err := v.selection(info, indices) // before a child is started for nothing
	if err != nil {
		return 0, err
	}
	d, err := v.Start(ctx)
	if err != nil {
		return 0, err
	}
	defer d.Close()
	d.used = true
	return d.frames(info, indices, distinct, fn)
}
