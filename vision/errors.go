package vision

import "errors"

// Errors returned (wrapped) by processors. Callers test them with errors.Is.
var (
	// ErrAspectRatio: the longer side is more than 200 times the shorter
	// one (exactly 200 is accepted). An invalid request (HTTP 400).
	ErrAspectRatio = errors.New("aspect ratio over 200")

	// ErrTooSmall: the image is empty, or the settings would resize it to a
	// zero-sized side.
	ErrTooSmall = errors.New("image too small")

	// ErrTooLarge: the settings (typically a per-request min_pixels) would
	// resize the image beyond the processor's pixel limit.
	ErrTooLarge = errors.New("image too large")

	// ErrBadOptions: invalid processor settings or overrides (negative or
	// inconsistent values, a malformed configuration).
	ErrBadOptions = errors.New("bad processor options")

	// ErrBadInput: arguments that do not fit together (an image that is not
	// the plan's source size, a destination of the wrong length).
	ErrBadInput = errors.New("bad input")

	// ErrUnsupported: an unknown model type, modality or output dtype.
	ErrUnsupported = errors.New("unsupported")
)
