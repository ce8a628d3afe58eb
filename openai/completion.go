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
	var raw rawCompletion
	if err := decodeBody(body, &raw); err != nil {
		return nil, err
	}
	out := &CompletionRequest{}
	if nonNull(raw.Prompt) == nil {
		return nil, BadRequest("prompt", "is required")
	}
	if err := out.parsePrompt(raw.Prompt); err != nil {
		return nil, err
	}
	if err := checkUnsupported(&raw); err != nil {
		return nil, err
	}
	if v := nonNull(raw.Logprobs); v != nil {
		var n int
		if err := json.Unmarshal(v, &n); err != nil {
			return nil, BadRequest("logprobs", "must be an integer (the number of alternatives per token)")
		}
		out.Logprobs = &n
	}
	params, err := raw.params()
	if err != nil {
		return nil, err
	}
	if err := params.setTopLogprobs(out.Logprobs, "logprobs"); err != nil {
		return nil, err
	}
	params.Logprobs = out.Logprobs != nil
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
	out.Params = &params
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

// parsePrompt accepts a string, a list of one string, a list of token ids,
// or a list of one list of token ids.
func (c *CompletionRequest) parsePrompt(raw json.RawMessage) error {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return c.setText(s)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return BadRequest("prompt", promptShapes)
	}
	if len(list) == 0 {
		return BadRequest("prompt", "must not be empty")
	}
	var ids []uint32
	if json.Unmarshal(raw, &ids) == nil {
		c.PromptIDs = ids
		return nil
	}
	if len(list) > 1 {
		var strs []string
		var lists [][]uint32
		if json.Unmarshal(raw, &strs) == nil || json.Unmarshal(raw, &lists) == nil {
			return BadRequest("prompt", fmt.Sprintf("a list of %d prompts is not supported: send one prompt per request", len(list)))
		}
		return BadRequest("prompt", promptShapes)
	}
	if json.Unmarshal(list[0], &s) == nil {
		return c.setText(s)
	}
	if json.Unmarshal(list[0], &ids) == nil && len(ids) > 0 {
		c.PromptIDs = ids
		return nil
	}
	return BadRequest("prompt", promptShapes)
}

func (c *CompletionRequest) setText(s string) error {
	if s == "" {
		return BadRequest("prompt", "must not be empty")
	}
	c.Prompt = s
	return nil
}
