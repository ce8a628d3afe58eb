package preprocess

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// Options configure a Runner. The zero value of each field is its
// documented default; Model is required. Each field names the flag of
// `mmgate preprocess` that sets it, and an *OptionsError about a field
// names that flag, because the command prints it as it is.
type Options struct {
	// Model is the model whose processors run (--model).
	Model family.Model
	// MinPixels and MaxPixels override the model's min_pixels and
	// max_pixels, for images and for each video's frames (--min-pixels,
	// --max-pixels); 0 keeps the model's.
	MinPixels, MaxPixels int
	// DType is the pixel_values dtype, a float type (--dtype); zero
	// means float32.
	DType tensor.DType
	// Hash puts the sha256 of each tensor's little-endian, row-major
	// bytes on its line (--hash).
	Hash bool
	// OutDir, when not "", receives <basename without extension>.npy per
	// input (--out); it is created when missing.
	OutDir string
	// Workers bounds the inputs decoded and processed at the same time
	// and the frames of one video processed at the same time (--workers);
	// 0 means GOMAXPROCS.
	Workers int
	// Background is the colour transparent images are composited onto
	// (--background); nil means white.
	Background *[3]uint8
	// Video are the settings that concern videos only.
	Video VideoOptions
	// Log receives the run's debug records; nil discards them.
	Log *slog.Logger
}

// VideoOptions are the settings that concern videos only.
type VideoOptions struct {
	// FPS is the sampling rate in frames per second (--fps); 0 means the
	// model's.
	FPS float64
	// NumFrames samples this many frames instead (--num-frames); 0 means
	// sampling by FPS. It excludes FPS.
	NumFrames int
	// TotalPixels is the Qwen2/2.5-VL pixel budget over all frames
	// (--total-pixels); 0 means the default.
	TotalPixels float64
	// AsVideo decodes GIFs as videos (with FFmpeg) instead of their first
	// frame (--as-video); an animated WebP is then refused, as FFmpeg 5.1
	// cannot decode it.
	AsVideo bool
}

// OptionsError reports Options, or a list of inputs, that cannot run: a
// mistake of the caller's rather than a refused input.
type OptionsError struct {
	Flag string // the flag the message is about ("--out"); "" when Err names it
	Err  error
}

func (e *OptionsError) Error() string {
	if e.Flag == "" {
		return e.Err.Error()
	}
	return e.Flag + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *OptionsError) Unwrap() error { return e.Err }

// ErrRefused is returned by Run when some input was refused; its line says
// why.
var ErrRefused = errors.New("preprocess: some inputs were refused")

// ErrOutput is wrapped by Run's error when a line could not be written.
var ErrOutput = errors.New("preprocess: writing a line")

// validate checks o; the messages name the flags.
func (o *Options) validate() error {
	usage := func(flag, format string, a ...any) error {
		return &OptionsError{Flag: flag, Err: fmt.Errorf(format, a...)}
	}
	switch {
	case o.Model == nil:
		return usage("--model", "no model")
	case o.MinPixels < 0 || o.MaxPixels < 0:
		return usage("", "--min-pixels and --max-pixels must not be negative")
	case o.Workers < 0:
		return usage("", "--workers must not be negative")
	case o.DType != 0 && !o.DType.IsFloat():
		return usage("--dtype", "%s is not a float type", o.DType)
	}
	return o.Video.validate()
}

// validate reports a usage error in the video settings.
func (v VideoOptions) validate() error {
	usage := func(format string, a ...any) error { return &OptionsError{Err: fmt.Errorf(format, a...)} }
	switch {
	case v.FPS < 0 || v.NumFrames < 0 || v.TotalPixels < 0:
		return usage("--fps, --num-frames and --total-pixels must not be negative")
	case v.FPS != 0 && v.NumFrames != 0:
		return usage("--fps and --num-frames exclude each other")
	case v.NumFrames > vision.MaxVideoFrames:
		return usage("--num-frames must be at most %d", vision.MaxVideoFrames)
	}
	return nil
}

// withDefaults returns o with its zero values replaced by the defaults
// they stand for.
func (o Options) withDefaults() Options {
	if o.DType == 0 {
		o.DType = tensor.Float32
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}
