package media

import "errors"

// Errors returned by Probe and Decode, always wrapped ("media: <op>: %w") so
// callers test them with errors.Is.
//
//   - ErrUnsupported: the bytes are not an image format this package knows, or
//     a variant of a known format it cannot decode exactly (HTTP 422).
//   - ErrCorrupt: the data is malformed (HTTP 422). ErrTruncated is a kind of
//     ErrCorrupt: errors.Is(err, ErrCorrupt) holds for truncated data too.
//   - ErrTooLarge: the header announces more pixels than Options.MaxPixels
//     (HTTP 413); nothing was allocated for the pixels.
var (
	ErrUnsupported       = errors.New("unsupported image format")
	ErrCorrupt           = errors.New("corrupt image data")
	ErrTruncated   error = &childError{msg: "truncated image data", parent: ErrCorrupt}
	ErrTooLarge          = errors.New("image too large")
)

// childError is a sentinel that also matches its parent sentinel.
type childError struct {
	msg    string
	parent error
}

func (e *childError) Error() string        { return e.msg }
func (e *childError) Is(target error) bool { return target == e.parent }
