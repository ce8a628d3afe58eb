package video

import "errors"

// Errors returned (wrapped as "video: <op>: %w") by this package; test them
// with errors.Is.
var (
	// ErrUnsupported: the bytes are not a container or codec this package
	// accepts, or the file has no video stream (HTTP 422).
	ErrUnsupported = errors.New("unsupported video")
	// ErrCorrupt: FFmpeg cannot decode the stream, or it yields other frames
	// than probed (HTTP 422).
	ErrCorrupt = errors.New("corrupt video data")
	// ErrTooLarge: the input is over a byte, duration, frame or frame-size
	// limit (HTTP 413).
	ErrTooLarge = errors.New("video too large")
	// ErrUnavailable: the ffmpeg or ffprobe binary cannot be run.
	ErrUnavailable = errors.New("ffmpeg unavailable")
	// ErrFrameCount: Decode decoded another number of frames than the
	// Info it was given says. A kind of ErrCorrupt; a caller that planned
	// from Info.DeclaredFrames re-plans with the decoded count instead.
	ErrFrameCount error = &childError{msg: "decoded frame count differs", parent: ErrCorrupt}
	// ErrRedo: a decode that left out unsampled pictures (h264_skip.go) did
	// not give the frames the container promises. The Video decodes every
	// picture from the container from then on; the caller repeats the call
	// (fn may have been called for some frames). A kind of ErrCorrupt.
	ErrRedo error = &childError{msg: "decode must be repeated", parent: ErrCorrupt}
)

// childError is a sentinel that also matches its parent sentinel.
type childError struct {
	msg    string
	parent error
}

func (e *childError) Error() string        { return e.msg }
func (e *childError) Is(target error) bool { return target == e.parent }
