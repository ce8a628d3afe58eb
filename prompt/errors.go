package prompt

import "errors"

var (
	// ErrBadRequest marks a request that is inconsistent with the model or
	// its template: unknown content parts, media placeholder tokens typed
	// in text, tool-call arguments that are not JSON, placeholder counts
	// the template did not render. It maps to HTTP 400.
	ErrBadRequest = errors.New("prompt: bad request")

	// ErrUnsupported marks a request the model or this build cannot serve:
	// a modality the model does not take, video before video support
	// lands. It maps to HTTP 400.
	ErrUnsupported = errors.New("prompt: unsupported")

	// ErrTooMany marks a request with more media items than allowed. It
	// maps to HTTP 400.
	ErrTooMany = errors.New("prompt: too many media items")
)

// Error is a request error with the JSON path of the offending field
// (OpenAI's "param", for example "messages[1].content[0].image_url.url";
// empty when no single field is at fault). It unwraps to one of
// ErrBadRequest, ErrUnsupported or ErrTooMany.
type Error struct {
	Kind  error
	Param string
	Msg   string
}

func (e *Error) Error() string {
	if e.Param != "" {
		return "prompt: " + e.Param + ": " + e.Msg
	}
	return "prompt: " + e.Msg
}

func (e *Error) Unwrap() error { return e.Kind }

func badRequest(param, msg string) error { return &Error{Kind: ErrBadRequest, Param: param, Msg: msg} }
