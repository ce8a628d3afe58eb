package resample

import "errors"

// The errors returned by this package wrap one of these, so callers can test
// them with errors.Is.
var (
	// ErrInvalid reports bad input: a non-positive size, an image whose
	// Pix length does not match its size, a nil or aliased destination.
	ErrInvalid = errors.New("invalid input")
	// ErrUnsupported reports an unknown filter.
	ErrUnsupported = errors.New("unsupported filter")
	// ErrTooLarge reports a size beyond MaxSide (Pillow computes scales in
	// C float, which is exact only below 2^24).
	ErrTooLarge = errors.New("size too large")
)

// MaxSide is the largest width or height accepted, input or output.
const MaxSide = 1<<24 - 1
