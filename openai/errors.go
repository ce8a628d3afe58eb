package openai

import "errors"

// ErrBadRequest marks a request that is malformed or inconsistent: bad
// JSON, wrong types, values out of range, fields that contradict each
// other, or (found later, by the gateway) a prompt that does not fit the
// model. It maps to HTTP 400.
var ErrBadRequest = errors.New("openai: bad request")

// RequestError is a bad request with the JSON path of the offending field
// (OpenAI's "param", for example "messages[1].content[0].image_url.url";
// empty when no single field is at fault). It unwraps to ErrBadRequest.
type RequestError struct {
	Param string
	Msg   string
}

// Error is the message an API client reads: the field's path, then what is
// wrong with it.
func (e *RequestError) Error() string {
	if e.Param != "" {
		return e.Param + ": " + e.Msg
	}
	return e.Msg
}

func (e *RequestError) Unwrap() error { return ErrBadRequest }

// BadRequest returns a *RequestError for param.
func BadRequest(param, msg string) error { return &RequestError{Param: param, Msg: msg} }
