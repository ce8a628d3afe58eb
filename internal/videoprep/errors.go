package videoprep

import (
	"errors"
	"fmt"
)

// Stage names where a preprocessing call failed.
type Stage string

// The stages, in pipeline order.
const (
	StageDecode   Stage = "decode"   // the bytes cannot be probed or decoded (media/video error)
	StagePlan     Stage = "plan"     // the processor refuses the video (too few frames, aspect ratio, limits)
	StageAllocate Stage = "allocate" // the Allocator failed or returned a wrong-sized buffer
	StageProcess  Stage = "process"  // resize / normalize / patchify failed
)

// ErrOptions is wrapped for invalid Options.
var ErrOptions = errors.New("bad options")

// Error is the error every failed call returns: the stage and the
// underlying error, which keeps the media/video and vision typed errors
// reachable through errors.Is.
type Error struct {
	Stage Stage
	Err   error
}

func (e *Error) Error() string { return fmt.Sprintf("videoprep: %s: %v", e.Stage, e.Err) }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// StageOf returns the stage of an error returned by this package, or "".
func StageOf(err error) Stage {
	var e *Error
	if errors.As(err, &e) {
		return e.Stage
	}
	return ""
}

func stageErr(s Stage, err error) error { return &Error{Stage: s, Err: err} }
