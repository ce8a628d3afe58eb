// Package apierr maps every error the gateway can meet to the OpenAI error
// JSON and HTTP status that the README's Errors section lists. It is the one
// place where that mapping lives: handlers call From and write what it
// returns. Request errors (*openai.RequestError, *prompt.Error) give the
// field at fault as the error's param.
package apierr

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/mmgate/mmgate/chattemplate"
	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/internal/admission"
	"github.com/mmgate/mmgate/internal/limits"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/media/video"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/vision"
)

// Error is an API error: the HTTP status and the error object of the body
// {"error": {"message", "type", "code", "param"}}.
type Error struct {
	Status int `json:"-"`
	// RetryAfter, when positive, is sent as the Retry-After header.
	RetryAfter time.Duration `json:"-"`
	openai.ErrorObject
}

func (e *Error) Error() string { return e.Message }

// Body is the JSON document for e.
func (e *Error) Body() openai.ErrorResponse { return openai.ErrorResponse{Error: &e.ErrorObject} }

// The error types of the README's Errors section.
const (
	TypeInvalidRequest = "invalid_request_error"
	TypeAuthentication = "authentication_error"
)

// New makes an Error; param may be "" (null).
func New(status int, typ, code, msg, param string) *Error {
	e := &Error{Status: status, ErrorObject: openai.ErrorObject{Type: typ, Code: code, Message: msg}}
	if param != "" {
		e.Param = param
	}
	return e
}

// Sentinels that the HTTP layer itself raises.
var (
	// ErrOverloaded: over max in-flight requests or a budget that cannot
	// be waited for.
	ErrOverloaded = errors.New("server overloaded")
	// ErrBodyTooLarge: the request body is over the limit.
	ErrBodyTooLarge = errors.New("request body too large")
	// ErrBadRequest: anything the handler refuses before the pipeline.
	ErrBadRequest = errors.New("bad request")
	// ErrUnauthorized: an API key is required and was missing or wrong.
	ErrUnauthorized = errors.New("invalid API key")
)

// rule maps a sentinel to a status, type and code.
type rule struct {
	target error
	status int
	typ    string
	code   string
}

// rules are checked in order; the first errors.Is match wins.
var rules = []rule{
	{ErrUnauthorized, http.StatusUnauthorized, TypeAuthentication, "invalid_api_key"},
	{admission.ErrTooLarge, http.StatusRequestEntityTooLarge, TypeInvalidRequest, "too_large"},
	{limits.ErrBodyTimeout, http.StatusRequestTimeout, TypeInvalidRequest, "request_timeout"},
	{limits.ErrRateLimited, http.StatusTooManyRequests, "rate_limit_error", "rate_limit_exceeded"},
	{limits.ErrFull, http.StatusTooManyRequests, "overloaded", "overloaded"},
	{limits.ErrQueueTimeout, http.StatusServiceUnavailable, "overloaded", "queue_timeout"},
	{fetch.ErrForbidden, http.StatusForbidden, TypeInvalidRequest, "media_url_forbidden"},
	{engine.ErrModelNotFound, http.StatusNotFound, TypeInvalidRequest, "model_not_found"},
	{engine.ErrTooLarge, http.StatusRequestEntityTooLarge, TypeInvalidRequest, "too_large"},
	{engine.ErrModality, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{engine.ErrWorkerRejected, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{engine.ErrUnsupportedParam, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{engine.ErrOverloaded, http.StatusTooManyRequests, "overloaded", "overloaded"},
	{engine.ErrNoWorker, http.StatusServiceUnavailable, "no_worker", "no_worker"},
	{engine.ErrTimeout, http.StatusGatewayTimeout, "timeout", "timeout"},
	{engine.ErrWorker, http.StatusBadGateway, "worker_error", "worker_error"},
	{ErrBodyTooLarge, http.StatusRequestEntityTooLarge, TypeInvalidRequest, "too_large"},
	{fetch.ErrTooLarge, http.StatusRequestEntityTooLarge, TypeInvalidRequest, "too_large"},
	{media.ErrTooLarge, http.StatusRequestEntityTooLarge, TypeInvalidRequest, "too_large"},
	{vision.ErrTooLarge, http.StatusRequestEntityTooLarge, TypeInvalidRequest, "too_large"},
	{shm.ErrTooLarge, http.StatusRequestEntityTooLarge, TypeInvalidRequest, "too_large"},
	{video.ErrTooLarge, http.StatusRequestEntityTooLarge, TypeInvalidRequest, "too_large"},
	{video.ErrUnsupported, http.StatusUnprocessableEntity, TypeInvalidRequest, "unprocessable_media"},
	{video.ErrCorrupt, http.StatusUnprocessableEntity, TypeInvalidRequest, "unprocessable_media"},
	{video.ErrUnavailable, http.StatusServiceUnavailable, "no_worker", "video_unavailable"},
	{fetch.ErrTimeout, http.StatusGatewayTimeout, "timeout", "timeout"},
	{fetch.ErrFetch, http.StatusUnprocessableEntity, TypeInvalidRequest, "unprocessable_media"},
	{media.ErrUnsupported, http.StatusUnprocessableEntity, TypeInvalidRequest, "unprocessable_media"},
	{media.ErrCorrupt, http.StatusUnprocessableEntity, TypeInvalidRequest, "unprocessable_media"},
	{fetch.ErrBadURL, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{openai.ErrBadRequest, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{prompt.ErrBadRequest, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{prompt.ErrUnsupported, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{prompt.ErrTooMany, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{chattemplate.ErrBadInput, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{chattemplate.ErrUnsupported, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{chattemplate.ErrBadTemplate, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{vision.ErrAspectRatio, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{vision.ErrTooSmall, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{vision.ErrBadOptions, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{vision.ErrUnsupported, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{ErrBadRequest, http.StatusBadRequest, TypeInvalidRequest, "invalid_request_error"},
	{ErrOverloaded, http.StatusTooManyRequests, "overloaded", "overloaded"},
	{context.DeadlineExceeded, http.StatusGatewayTimeout, "timeout", "timeout"},
}

// retryAfter is an error that advises when to try again (*limits.Refusal,
// *admission.Refusal).
type retryAfter interface {
	RetryAfter() time.Duration
}

// From maps err to an API error; anything unrecognised becomes a 500
// without leaking internals beyond the message.
func From(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	param := ""
	var re *openai.RequestError
	var pe *prompt.Error
	switch {
	case errors.As(err, &re):
		param = re.Param
	case errors.As(err, &pe):
		param = pe.Param
	}
	for _, r := range rules {
		if errors.Is(err, r.target) {
			e := New(r.status, r.typ, r.code, err.Error(), param)
			var ra retryAfter
			if errors.As(err, &ra) {
				e.RetryAfter = ra.RetryAfter()
			}
			return e
		}
	}
	if errors.Is(err, context.Canceled) {
		return New(499, "cancelled", "cancelled", "request cancelled", "")
	}
	return New(http.StatusInternalServerError, "internal_error", "internal_error", err.Error(), "")
}
