package openai

import (
	"encoding/json"
	"fmt"
)

// CompletionRequest is a POST /v1/completions request: one prompt, as text
// or as token ids, and the settings chat requests share (Params).
type CompletionRequest struct {
	// Params holds the model, stream flags, output budget and sampling.
	// Params.Logprobs is set when the request asked for logprobs,
	// Params.TopLogprobs is their count; Params.MaxTokens is never nil.
	Params *Params
	// Prompt is the text prompt (tokenized without a chat template) when
	// PromptIDs is nil.
	Prompt string
	// PromptIDs are the prompt's token ids when the client sent ids.
	PromptIDs []uint32
	// Logprobs is the legacy `logprobs` integer: how many alternatives to
	// list per token (nil: no logprobs).
	Logprobs *int
}

// DefaultCompletionMaxTokens is max_tokens when a completion request sets
// none, as OpenAI's legacy completions and vLLM default it.
const DefaultCompletionMaxTokens = 16

type rawCompletion struct {
	rawParams
	Prompt   json.RawMessage `json:"prompt"`
	Echo     json.RawMessage `json:"echo"`
	Suffix   json.RawMessage `json:"suffix"`
	Logprobs json.RawMessage `json:"logprobs"`
	BestOf   json.RawMessage `json:"best_of"`
}

// ParseCompletion parses a completions request body. Errors are
// *RequestError values. Chat-only fields are ignored.
func ParseCompletion(body []byte) (*CompletionRequest, error) {
	reqs, err := parseCompletion(body, false)
	if err != nil {
		return nil, err
	}
	return reqs[0], nil
}

// ParseCompletionBatch parses a completions request whose prompt may also be
// a batch — a list of strings or a list of token-id lists — as vLLM's
// completions render takes it: one request per prompt, in order, sharing
// one Params.
func ParseCompletionBatch(body []byte) ([]*CompletionRequest, error) {
	return parseCompletion(body, true)
}

func parseCompletion(body []byte, batch bool) ([]*CompletionRequest, error) {
	var raw rawCompletion
	if err := decodeBody(body, &raw); err != nil {
		return nil, err
	}
	if nonNull(raw.Prompt) == nil {
		return nil, BadRequest("prompt", "is required")
	}
	prompts, err := parsePrompts(raw.Prompt, batch)
	if err != nil {
		return nil, err
	}
	if err := checkUnsupported(&raw); err != nil {
		return nil, err
	}
	var logprobs *int
	if v := nonNull(raw.Logprobs); v != nil {
		var n int
		if err := json.Unmarshal(v, &n); err != nil {
			return nil, BadRequest("logprobs", "must be an integer (the number of alternatives per token)")
		}
		logprobs = &n
	}
	params, err := raw.params()
	if err != nil {
		return nil, err
	}
	if err := params.setTopLogprobs(logprobs, "logprobs"); err != nil {
		return nil, err
	}
	params.Logprobs = logprobs != nil
	if v := nonNull(raw.BestOf); v != nil {
		var k int
		if err := json.Unmarshal(v, &k); err != nil || k != params.Choices() {
			return nil, BadRequest("best_of", "best_of is not supported (it may only equal n)")
		}
	}
	if params.MaxTokens == nil {
		d := DefaultCompletionMaxTokens
		params.MaxTokens = &d
	}
	out := make([]*CompletionRequest, len(prompts))
	for i, p := range prompts {
		out[i] = &CompletionRequest{Params: &params, Prompt: p.text, PromptIDs: p.ids, Logprobs: logprobs}
	}
	return out, nil
}

// checkUnsupported refuses echo and a suffix, which mmgate does not serve.
func checkUnsupported(raw *rawCompletion) error {
	if v := nonNull(raw.Echo); v != nil {
		var echo bool
		if err := json.Unmarshal(v, &echo); err != nil {
			return BadRequest("echo", "must be a boolean")
		}
		if echo {
			return BadRequest("echo", "echo=true is not supported")
		}
	}
	if v := nonNull(raw.Suffix); v != nil {
		var s string
		if err := json.Unmarshal(v, &s); err != nil || s != "" {
			return BadRequest("suffix", "suffix is not supported")
		}
	}
	return nil
}

const promptShapes = "must be a string, a list of token ids, or a list of one of those"

// promptIn is one prompt of a completions request: text, or ids when ids
// is not nil.
type promptIn struct {
	text string
	ids  []uint32
}

// parsePrompts accepts a string, a list of token ids, or a list of strings
// or of token-id lists; a list of several prompts only with batch.
func parsePrompts(raw json.RawMessage, batch bool) ([]promptIn, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return textPrompts([]string{s})
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, BadRequest("prompt", promptShapes)
	}
	if len(list) == 0 {
		return nil, BadRequest("prompt", "must not be empty")
	}
	var ids []uint32
	if json.Unmarshal(raw, &ids) == nil {
		return []promptIn{{ids: ids}}, nil
	}
	var strs []string
	var lists [][]uint32
	isStrs, isLists := json.Unmarshal(raw, &strs) == nil, json.Unmarshal(raw, &lists) == nil
	switch {
	case !isStrs && !isLists:
		return nil, BadRequest("prompt", promptShapes)
	case len(list) > 1 && !batch:
		return nil, BadRequest("prompt", fmt.Sprintf("a list of %d prompts is not supported: send one prompt per request", len(list)))
	case isStrs:
		return textPrompts(strs)
	}
	out := make([]promptIn, len(lists))
	for i, l := range lists {
		if len(l) == 0 {
			return nil, BadRequest(fmt.Sprintf("prompt[%d]", i), "must not be empty")
		}
		out[i] = promptIn{ids: l}
	}
	return out, nil
}

// textPrompts are text prompts, none empty.
func textPrompts(strs []string) ([]promptIn, error) {
	out := make([]promptIn, len(strs))
	for i, s := range strs {
		if s == "" {
			return nil, BadRequest("prompt", "must not be empty")
		}
		out[i] = promptIn{text: s}
	}
	return out, nil
}
