package openai_test

import (
	"testing"

	"github.com/mmgate/mmgate/internal/apierr"
	"github.com/mmgate/mmgate/openai"
)

func TestParseCompletion(t *testing.T) {
	ok := []struct {
		body   string
		prompt string
		ids    int
		maxTok int
		lp     int // -1: none
	}{
		{`{"prompt":"hi"}`, "hi", 0, openai.DefaultCompletionMaxTokens, -1},
		{`{"prompt":["hi"],"max_tokens":5}`, "hi", 0, 5, -1},
		{`{"prompt":[1,2,3],"logprobs":3}`, "", 3, openai.DefaultCompletionMaxTokens, 3},
		{`{"prompt":[[7,8]],"echo":false,"logprobs":null}`, "", 2, openai.DefaultCompletionMaxTokens, -1},
		{`{"prompt":"x","n":2,"best_of":2,"suffix":""}`, "x", 0, openai.DefaultCompletionMaxTokens, -1},
	}
	for _, c := range ok {
		r, err := openai.ParseCompletion([]byte(c.body))
		if err != nil {
			t.Errorf("%s: %v", c.body, err)
			continue
		}
		lp := -1
		if r.Logprobs != nil {
			lp = *r.Logprobs
			if !r.Params.Logprobs || *r.Params.TopLogprobs != lp {
				t.Errorf("%s: params logprobs not set", c.body)
			}
		}
		if r.Prompt != c.prompt || len(r.PromptIDs) != c.ids || *r.Params.MaxTokens != c.maxTok || lp != c.lp {
			t.Errorf("%s: %+v", c.body, r)
		}
	}
	bad := []struct{ body, param string }{
		{`{}`, "prompt"},
		{`{"prompt":""}`, "prompt"},
		{`{"prompt":[]}`, "prompt"},
		{`{"prompt":["a","b"]}`, "prompt"},
		{`{"prompt":[[1],[2]]}`, "prompt"},
		{`{"prompt":{"x":1}}`, "prompt"},
		{`{"prompt":[-1]}`, "prompt"},
		{`{"prompt":"x","echo":true}`, "echo"},
		{`{"prompt":"x","suffix":"end"}`, "suffix"},
		{`{"prompt":"x","logprobs":true}`, "logprobs"},
		{`{"prompt":"x","logprobs":21}`, "logprobs"},
		{`{"prompt":"x","best_of":3}`, "best_of"},
		{`{"prompt":"x","stop":5}`, "stop"},
		{`{"prompt":"x","n":0}`, "n"},
		{`[1]`, ""},
		{`{"prompt":`, ""},
	}
	for _, c := range bad {
		_, err := openai.ParseCompletion([]byte(c.body))
		if err == nil {
			t.Errorf("%s: accepted", c.body)
			continue
		}
		if e := apierr.From(err); e.Status != 400 || (c.param != "" && e.Param != c.param) {
			t.Errorf("%s: %d param %v (%v)", c.body, e.Status, e.Param, err)
		}
	}
}

func FuzzParseCompletion(f *testing.F) {
	for _, s := range []string{
		`{"prompt":"hi"}`, `{"prompt":[1,2,3],"logprobs":2,"stream":true}`, `{"prompt":[[7]],"n":2,"best_of":2}`,
		`{"prompt":["a","b"]}`, `{"prompt":"x","echo":true}`, `{"prompt":"x","stop":["\n"],"max_tokens":3}`, `[]`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := openai.ParseCompletion(body)
		if err != nil {
			if e := apierr.From(err); e.Status != 400 {
				t.Fatalf("error maps to %d: %v", e.Status, err)
			}
			return
		}
		if (r.Prompt == "") == (r.PromptIDs == nil) {
			t.Fatalf("want exactly one of a text and an id prompt: %+v", r)
		}
		if r.Params == nil || r.Params.MaxTokens == nil {
			t.Fatalf("params %+v", r.Params)
		}
		if (r.Logprobs != nil) != r.Params.Logprobs {
			t.Fatalf("logprobs %v vs %v", r.Logprobs, r.Params.Logprobs)
		}
	})
}
