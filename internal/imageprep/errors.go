package imageprep

import (
	"errors"
	"fmt"
)

// Stage names where a preprocessing call failed.
type Stage string

// The stages, in pipeline order.
const (
	StageDecode   Stage = "decode"   // the bytes cannot be decoded (media error)
	StagePlan     Stage = "plan"     // the processor refuses the size (e.g. aspect ratio over 200)
	StageAllocate Stage = "allocate" // the Allocator failed or returned a wrong-sized buffer
	StageProcess  Stage = "process"  // resize / normalize / patchify failed
)

// ErrAllocation is wrapped when an Allocator returns a buffer whose length is
// not the planned byte size.
var ErrAllocation = errors.New("allocator returned a buffer of the wrong size")

// ErrOptions is wrapped for invalid Options or call arguments.
var ErrOptions = errors.New("bad options")

// Error is the error every failed call returns: the stage that failed and
// the underlying error, which keeps the media / vision typed errors
// reachable through errors.Is and errors.As.
//
// Package videoprep returns the same type, with Op "videoprep".
type Error struct {
	Op    string // the package that failed; "" means "imageprep"
	Stage Stage
	Err   error
}

func (e *Error) Error() string {
	op := e.Op
	if op == "" {
		op = "imageprep"
	}
	return fmt.Sprintf("%s: %s: %v", op, e.Stage, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// StageOf returns the stage of an error returned by this package, or "" for
// any other error (for example a context cancellation before work started).
func StageOf(err error) Stage {
	var e *Error
	if errors.As(err, &e) {
		return e.Stage
	}
	return ""
}

func stageErr(s Stage, err error) error { return &Error{Stage: s, Err: err} }
