package apierr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mmgate/mmgate/chattemplate"
	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/internal/admission"
	"github.com/mmgate/mmgate/internal/limits"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/media/video"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/vision"
)

// TestFrom checks the status of every error kind the README's Errors table
// lists.
func TestFrom(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("stage: %w", err) }
	cases := []struct {
		err    error
		status int
		code   string
	}{
		{&prompt.Error{Kind: prompt.ErrBadRequest, Param: "messages[0].content", Msg: "bad"}, 400, "invalid_request_error"},
		{wrap(prompt.ErrTooMany), 400, "invalid_request_error"},
		{wrap(vision.ErrAspectRatio), 400, "invalid_request_error"},
		{wrap(chattemplate.ErrBadInput), 400, "invalid_request_error"},
		{wrap(engine.ErrModality), 400, "invalid_request_error"},
		{wrap(engine.ErrWorkerRejected), 400, "invalid_request_error"},
		{wrap(engine.ErrUnsupportedParam), 400, "invalid_request_error"},
		{wrap(ErrUnauthorized), 401, "invalid_api_key"},
		{wrap(fetch.ErrForbidden), 403, "media_url_forbidden"},
		{wrap(engine.ErrModelNotFound), 404, "model_not_found"},
		{wrap(ErrBodyTooLarge), 413, "too_large"},
		{wrap(fetch.ErrTooLarge), 413, "too_large"},
		{wrap(media.ErrTooLarge), 413, "too_large"},
		{wrap(vision.ErrTooLarge), 413, "too_large"},
		{wrap(shm.ErrTooLarge), 413, "too_large"},
		{wrap(video.ErrTooLarge), 413, "too_large"},
		{wrap(media.ErrCorrupt), 422, "unprocessable_media"},
		{wrap(media.ErrUnsupported), 422, "unprocessable_media"},
		{wrap(video.ErrCorrupt), 422, "unprocessable_media"},
		{wrap(fetch.ErrFetch), 422, "unprocessable_media"},
		{wrap(ErrOverloaded), 429, "overloaded"},
		{wrap(engine.ErrOverloaded), 429, "overloaded"},
		{wrap(engine.ErrWorker), 502, "worker_error"},
		{wrap(engine.ErrNoWorker), 503, "no_worker"},
		{wrap(fetch.ErrTimeout), 504, "timeout"},
		{wrap(engine.ErrTimeout), 504, "timeout"},
		{wrap(context.DeadlineExceeded), 504, "timeout"},
		{wrap(&limits.Refusal{Kind: limits.ErrBodyTimeout, Msg: "slow"}), 408, "request_timeout"},
		{wrap(&limits.Refusal{Kind: limits.ErrRateLimited, Msg: "rate"}), 429, "rate_limit_exceeded"},
		{wrap(&limits.Refusal{Kind: limits.ErrFull, Msg: "full"}), 429, "overloaded"},
		{wrap(&limits.Refusal{Kind: limits.ErrQueueTimeout, Msg: "queue"}), 503, "queue_timeout"},
		{wrap(&admission.Refusal{Kind: admission.ErrTooLarge, Reason: admission.ReasonTooLarge, Planned: 2, Allowed: 1}), 413, "too_large"},
		{wrap(&admission.Refusal{Kind: admission.ErrQueueTimeout, Reason: admission.ReasonQueueTimeout}), 503, "queue_timeout"},
		{errors.New("something else"), 500, "internal_error"},
	}
	for _, c := range cases {
		e := From(c.err)
		if e.Status != c.status || e.Code != c.code || e.Message == "" {
			t.Errorf("%v: got %d %q, want %d %q", c.err, e.Status, e.Code, c.status, c.code)
		}
	}
	if e := From(cases[0].err); e.Param != "messages[0].content" {
		t.Errorf("param %v", e.Param)
	}
	if e := From(wrap(ErrOverloaded)); e.Param != nil {
		t.Errorf("param should be null, got %v", e.Param)
	}
	if e := From(wrap(&limits.Refusal{Kind: limits.ErrRateLimited, Msg: "m", Retry: 3 * time.Second})); e.RetryAfter != 3*time.Second {
		t.Errorf("retry after %v", e.RetryAfter)
	}
	custom := New(http.StatusTeapot, "x", "y", "z", "")
	if From(fmt.Errorf("w: %w", custom)) != custom {
		t.Error("an *Error is returned as is")
	}
}
