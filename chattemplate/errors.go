package chattemplate

import "errors"

var (
	// ErrBadInput marks input a template cannot render: values of
	// unsupported types, malformed JSON, conflicting options. It maps to
	// HTTP 400.
	ErrBadInput = errors.New("chattemplate: bad input")

	// ErrBadTemplate marks a template that does not compile.
	ErrBadTemplate = errors.New("chattemplate: bad template")

	// ErrUnsupported marks a template feature the engine does not implement
	// or a request the model's templates cannot serve (tools given to a
	// template set without tool support). It maps to HTTP 400.
	ErrUnsupported = errors.New("chattemplate: unsupported")
)

// RaiseError is the error a template raises with raise_exception(message).
// It matches ErrBadInput (errors.Is) and maps to HTTP 400; Message is the
// template's own text, suitable for the client.
type RaiseError struct {
	Message string
}

func (e *RaiseError) Error() string { return "chattemplate: template raised: " + e.Message }

// Is makes a RaiseError match ErrBadInput.
func (e *RaiseError) Is(target error) bool { return target == ErrBadInput }
