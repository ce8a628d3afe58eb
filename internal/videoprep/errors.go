package videoprep

import (
	"errors"

	"github.com/mmgate/mmgate/internal/imageprep"
)

// Stage names where a preprocessing call failed: the stages of imageprep
// (decode: the bytes cannot be probed or decoded; plan: the processor
// refuses the video, e.g. too few frames; allocate; process).
type Stage = imageprep.Stage

// The stages, in pipeline order.
const (
	StageDecode   = imageprep.StageDecode
	StagePlan     = imageprep.StagePlan
	StageAllocate = imageprep.StageAllocate
	StageProcess  = imageprep.StageProcess
)

// ErrOptions is wrapped for invalid Options.
var ErrOptions = errors.New("bad options")

// Error is the error every failed call returns (imageprep's, with Op
// "videoprep"): the stage and the underlying error, which keeps the
// media/video and vision typed errors reachable through errors.Is.
type Error = imageprep.Error

// StageOf returns the stage of an error returned by this package, or "".
func StageOf(err error) Stage { return imageprep.StageOf(err) }

func stageErr(s Stage, err error) error { return &Error{Op: "videoprep", Stage: s, Err: err} }
