package vision

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
)

// VideoInfo is what video planning needs from a probed stream.
type VideoInfo struct {
	Width, Height int     // decoded frame size
	Frames        int     // decoded frame count
	FPS           float64 // average frame rate; ≤ 0 when unknown
}

// VideoOverrides are per-request video settings (vLLM's mm_processor_kwargs).
// A zero field means the model's default. FPS and NumFrames exclude each
// other.
type VideoOverrides struct {
	FPS         float64 // sampling rate in frames per second
	NumFrames   int     // sample exactly this many frames (Qwen2/2.5: rounded to even)
	MinPixels   int     // video processor min_pixels
	MaxPixels   int     // video processor max_pixels
	TotalPixels float64 // Qwen2/2.5 (qwen-vl-utils) budget over all frames; Qwen3-VL has none and ignores it
}

// Validate rejects negative, non-finite and mutually exclusive values.
func (o VideoOverrides) Validate() error {
	if o.MinPixels < 0 || o.MaxPixels < 0 || o.NumFrames < 0 || !(o.FPS >= 0) || !(o.TotalPixels >= 0) ||
		math.IsInf(o.FPS, 0) || math.IsInf(o.TotalPixels, 0) {
		return fmt.Errorf("vision: video overrides %+v: %w", o, ErrBadOptions)
	}
	if o.FPS != 0 && o.NumFrames != 0 {
		return fmt.Errorf("vision: video overrides: fps and num_frames are exclusive: %w", ErrBadOptions)
	}
	return nil
}

// VideoPlan describes the tensors one video becomes: which source frames are
// sampled, their resized size, the grid and the prompt metadata. Plan's
// SourceWidth/Height are the frame size and Width/Height the resized frame
// size; GridT counts temporal groups.
type VideoPlan struct {
	Plan
	// Indices are the sampled source frame indices, in order, before any
	// temporal padding (an odd count is padded with the last frame).
	Indices []int
	// SourceFPS is the stream's frame rate the plan used (0: unknown).
	SourceFPS float64
	// SampleFPS is the effective sampling rate (qwen-vl-utils sample_fps);
	// 0 for models that do not define it.
	SampleFPS float64
	// SecondPerGridTS is Qwen2.5-VL's second_per_grid_ts; 0 for other models.
	SecondPerGridTS float64
	// Timestamps are Qwen3-VL's seconds per temporal group (before the
	// prompt's one-decimal formatting); nil for other models.
	Timestamps []float64
	// FirstWidth/FirstHeight, when not zero, are an intermediate size the
	// frames are resized to before Width×Height (qwen-vl-utils' size
	// followed by the processor's own smart_resize).
	FirstWidth, FirstHeight int
}

// Frames is the number of sampled frames (before padding).
func (p VideoPlan) Frames() int { return len(p.Indices) }

// VideoTimings are the summed per-frame times of one video's processing.
// Frames are processed concurrently, so sums can exceed the wall time.
type VideoTimings struct {
	Resize            time.Duration
	NormalizePatchify time.Duration
}

// VideoSink receives a video's sampled frames, in any order and
// concurrently, and writes pixel_values into the destination it was started
// with. Finish reports an error unless every frame arrived.
type VideoSink interface {
	// Frame processes the k-th sampled frame (source index plan.Indices[k]).
	// The frame is not modified and not kept: once Frame returns, the
	// caller may reuse its pixels for another frame.
	Frame(ctx context.Context, k int, frame *imaging.RGB) error
	// Finish checks that every frame was written and returns the timings.
	Finish() (VideoTimings, error)
}

// VideoProcessor is a Processor that also takes videos.
type VideoProcessor interface {
	Processor

	// PlanVideo samples frames and sizes them, from the stream's metadata
	// and the request alone.
	PlanVideo(info VideoInfo, o VideoOverrides) (VideoPlan, error)

	// StartVideo returns a sink writing pixel_values_videos into dst, which
	// must be exactly plan.Bytes(dt) long.
	StartVideo(plan VideoPlan, dt tensor.DType, dst []byte) (VideoSink, error)

	// ProcessVideo processes all sampled frames at once (in plan order).
	ProcessVideo(ctx context.Context, frames []*imaging.RGB, plan VideoPlan, dt tensor.DType, dst []byte) (VideoTimings, error)
}
