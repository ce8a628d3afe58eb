package video

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"
)

// Options configure a Decoder. The zero value of each field means its default.
type Options struct {
	FFmpeg  string // ffmpeg binary; default "ffmpeg" looked up in PATH
	FFprobe string // ffprobe binary; default "ffprobe" looked up in PATH

	MaxBytes       int64         // largest input; default 256 MiB
	MaxDuration    time.Duration // longest stream; default 10 min
	MaxFrames      int           // most sampled frames one Decode call returns; default 768
	MaxFramePixels int           // largest frame width·height; default 64 Mpx

	// Threads is FFmpeg's -threads for decoding; default one per CPU the
	// process may use (GOMAXPROCS, which follows cgroup limits), at most 16.
	// FFmpeg's own default is one more than the cores, which on two cores
	// decodes H.264 720p about 20% slower: the extra frame thread only
	// contends. The frames do not depend on it.
	Threads int

	// AllowGIF accepts GIF input (an animated GIF decoded as a video). Off by
	// default: GIF is an image format unless the caller asks otherwise.
	AllowGIF bool

	// DecodeAll makes every decode read the container and decode every
	// picture. By default an MP4 H.264 track that qualifies (h264_skip.go)
	// is fed to FFmpeg without the non-reference pictures that are not
	// sampled; both give the same frames.
	DecodeAll bool

	// FFprobeHeaders makes Header always run ffprobe. By default the
	// headers of MP4/MOV and Matroska/WebM files are read in Go where the
	// parser follows them exactly (header.go), ffprobe otherwise; both give
	// the same Info.
	FFprobeHeaders bool
}

// Defaults of Options.
const (
	DefaultMaxBytes       = 256 << 20
	DefaultMaxDuration    = 10 * time.Minute
	DefaultMaxFrames      = 768
	DefaultMaxFramePixels = 1 << 26

	maxAutoThreads = 16 // FFmpeg's own cap on automatic threads
)

// codecs lists the video codecs the package decodes.
var codecs = map[string]bool{
	"h264": true, "hevc": true, "vp8": true, "vp9": true, "av1": true,
	"mpeg4": true, "mpeg1video": true, "mpeg2video": true, "mjpeg": true,
	"gif": true, "h263": true, "theora": true, "prores": true,
}

// Decoder runs ffprobe and ffmpeg. It is immutable and safe for concurrent use.
type Decoder struct {
	o        Options
	pipeSize int // frame pipe buffer asked for (pipeMaxSize, read once)
}

// New checks o, fills in the defaults and returns a Decoder. It does not run
// the binaries; Available does.
func New(o Options) (*Decoder, error) {
	if o.MaxBytes < 0 || o.MaxDuration < 0 || o.MaxFrames < 0 || o.MaxFramePixels < 0 || o.Threads < 0 {
		return nil, fmt.Errorf("video: negative option in %+v: %w", o, ErrUnsupported)
	}
	if o.FFmpeg == "" {
		o.FFmpeg = "ffmpeg"
	}
	if o.FFprobe == "" {
		o.FFprobe = "ffprobe"
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxDuration == 0 {
		o.MaxDuration = DefaultMaxDuration
	}
	if o.MaxFrames == 0 {
		o.MaxFrames = DefaultMaxFrames
	}
	if o.MaxFramePixels == 0 {
		o.MaxFramePixels = DefaultMaxFramePixels
	}
	if o.Threads == 0 {
		o.Threads = min(runtime.GOMAXPROCS(0), maxAutoThreads)
	}
	return &Decoder{o: o, pipeSize: pipeMaxSize()}, nil
}

// Options returns the effective options (defaults filled in).
func (d *Decoder) Options() Options { return d.o }

// Video is one input held in memory for FFmpeg to read. Close releases it.
// A Video may be probed and decoded any number of times, one call at a time
// or concurrently.
type Video struct {
	d         *Decoder
	f         *os.File
	path      string // what the child opens
	container string
	size      int64
	head      Info // the headers as read in Go, when headOK
	headOK    bool
	skip      *h264Skip   // the track as the skipping decode feeds it; nil when it does not qualify
	full      atomic.Bool // a skipping decode failed: decode from the container
}

// Open checks the input's size and container and places it where FFmpeg can
// read (and seek) it. The caller must Close the Video.
func (d *Decoder) Open(data []byte) (*Video, error) {
	if int64(len(data)) > d.o.MaxBytes {
		return nil, fmt.Errorf("video: open: %d bytes, limit %d: %w", len(data), d.o.MaxBytes, ErrTooLarge)
	}
	c := Sniff(data)
	if c == "" || (c == ContainerGIF && !d.o.AllowGIF) {
		return nil, fmt.Errorf("video: open: not a supported video container: %w", ErrUnsupported)
	}
	f, path, err := memFile(data)
	if err != nil {
		return nil, fmt.Errorf("video: open: %w", err)
	}
	v := &Video{d: d, f: f, path: path, container: c, size: int64(len(data))}
	if !d.o.FFprobeHeaders {
		v.head, v.headOK = parseHeader(data, c)
	}
	if v.headOK && c == ContainerMP4 && v.head.Codec == "h264" && v.head.Rotation == 0 && !d.o.DecodeAll {
		v.skip, _ = h264Skippable(data)
	}
	return v, nil
}

// Close releases the in-memory copy.
func (v *Video) Close() error {
	if v.f != nil {
		releaseMemFile(v.f, v.path)
		v.f = nil
	}
	return nil
}

// Container is the sniffed container (the demuxer FFmpeg is forced to use).
func (v *Video) Container() string { return v.container }

// Header reads the headers only and checks the limits: everything but
// Frames (0) is set, and DeclaredFrames when the container has a count.
func (v *Video) Header(ctx context.Context) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	head := v.head
	if !v.headOK {
		var err error
		if head, err = v.probe(ctx, false); err != nil {
			return Info{}, fmt.Errorf("video: probe: %w", err)
		}
	}
	head.Container = v.container
	if head.Duration == 0 && head.DeclaredFrames > 0 && head.FPS > 0 {
		head.Duration = float64(head.DeclaredFrames) / head.FPS
	}
	lim := head
	lim.Frames = head.DeclaredFrames
	if err := v.checkLimits(lim); err != nil {
		return Info{}, fmt.Errorf("video: probe: %w", err)
	}
	return head, nil
}

// Probe reads the headers, checks the limits, then decodes every frame of the
// first video stream to count them. The returned Info is complete.
func (v *Video) Probe(ctx context.Context) (Info, error) {
	if _, err := v.Header(ctx); err != nil {
		return Info{}, err
	}
	counted, err := v.probe(ctx, true)
	if err != nil {
		return Info{}, fmt.Errorf("video: count frames: %w", err)
	}
	if counted.Frames < 1 {
		return Info{}, fmt.Errorf("video: count frames: no frame decoded: %w", ErrCorrupt)
	}
	if counted.Duration == 0 && counted.FPS > 0 {
		counted.Duration = float64(counted.Frames) / counted.FPS
	}
	if err := v.checkLimits(counted); err != nil {
		return Info{}, fmt.Errorf("video: count frames: %w", err)
	}
	counted.Container = v.container
	return counted, nil
}

func (v *Video) checkLimits(info Info) error {
	o := v.d.o
	if info.Width*info.Height > o.MaxFramePixels {
		return fmt.Errorf("frames are %dx%d, limit %d pixels: %w", info.Width, info.Height, o.MaxFramePixels, ErrTooLarge)
	}
	if info.Duration > o.MaxDuration.Seconds() {
		return fmt.Errorf("duration %.3fs, limit %v: %w", info.Duration, o.MaxDuration, ErrTooLarge)
	}
	if !codecs[info.Codec] {
		return fmt.Errorf("codec %q: %w", info.Codec, ErrUnsupported)
	}
	// Without a duration, bound the decode work by frames at a high rate.
	if info.Duration == 0 && info.Frames > 0 && float64(info.Frames) > o.MaxDuration.Seconds()*240 {
		return fmt.Errorf("%d frames with no duration: %w", info.Frames, ErrTooLarge)
	}
	return nil
}

func (v *Video) probe(ctx context.Context, count bool) (Info, error) {
	args := []string{"-v", "error", "-hide_banner", "-protocol_whitelist", "file", "-f", v.container}
	if count {
		args = append(args, "-count_frames")
		if t := v.d.o.Threads; t > 0 {
			args = append(args, "-threads", fmt.Sprint(t))
		}
	}
	args = append(args,
		"-select_streams", "v:0",
		"-show_entries", "stream=codec_name,codec_type,width,height,avg_frame_rate,r_frame_rate,duration,nb_frames,nb_read_frames:stream_side_data=side_data_type,rotation:stream_tags=rotate:format=duration",
		"-of", "json", v.path)
	out, err := v.run(ctx, v.d.o.FFprobe, args, nil)
	if err != nil {
		return Info{}, err
	}
	return parseProbe(out, count)
}

// selectExpr is the select filter expression keeping the given sorted,
// distinct frame indices: runs of consecutive indices become between(),
// combined in a balanced tree of sums (FFmpeg's expression parser fails on
// a long flat sum).
func selectExpr(indices []int) string {
	if len(indices) == 0 {
		return "select=0"
	}
	type run struct{ a, b int }
	var runs []run
	for _, n := range indices {
		if len(runs) > 0 && runs[len(runs)-1].b == n-1 {
			runs[len(runs)-1].b = n
			continue
		}
		runs = append(runs, run{n, n})
	}
	var b []byte
	var tree func(rs []run)
	tree = func(rs []run) {
		if len(rs) == 1 {
			if r := rs[0]; r.a == r.b {
				b = fmt.Appendf(b, "eq(n\\,%d)", r.a)
			} else {
				b = fmt.Appendf(b, "between(n\\,%d\\,%d)", r.a, r.b)
			}
			return
		}
		m := len(rs) / 2
		b = append(b, '(')
		tree(rs[:m])
		b = append(b, '+')
		tree(rs[m:])
		b = append(b, ')')
	}
	b = append(b, "select='"...)
	tree(runs)
	return string(append(b, '\''))
}
