package openai

import (
	"errors"
	"strconv"
	"testing"
)

// TestTopLogprobsBounds: top_logprobs outside 0..MaxTopLogprobs is a bad
// request (a huge value once made the worker build gigabytes of lists).
func TestTopLogprobsBounds(t *testing.T) {
	for _, c := range []struct {
		v  string
		ok bool
	}{{"0", true}, {"5", true}, {"20", true}, {"21", false}, {"-1", false}, {"1000000000", false}} {
		body := `{"messages":[{"role":"user","content":"hi"}],"logprobs":true,"top_logprobs":` + c.v + `}`
		r, err := ParseChat([]byte(body))
		if c.ok {
			if err != nil || r.TopLogprobs == nil || strconv.Itoa(*r.TopLogprobs) != c.v {
				t.Errorf("top_logprobs %s: %v", c.v, err)
			}
			continue
		}
		var pe *RequestError
		if !errors.As(err, &pe) || !errors.Is(err, ErrBadRequest) || pe.Param != "top_logprobs" {
			t.Errorf("top_logprobs %s: err = %v, want a bad request on top_logprobs", c.v, err)
		}
	}
}
