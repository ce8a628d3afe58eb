package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mmgate/mmgate/prompt"
)

// CompletionRequest is a POST /v1/completions request: one prompt, as text or
// as token ids, and the sampling settings chat requests have.
type CompletionRequest struct {
	// Params holds the model, stream flags and sampling settings (parsed
	// as a chat request's are); Messages is empty. Params.Logprobs is set
	// when the request asked for logprobs, Params.TopLogprobs is their
	// count.
	Params *prompt.Request
	// Prompt is the text prompt (tokenized without a chat template) when
	// PromptIDs is nil.
	Prompt string
	// PromptIDs are the prompt's token ids when the client sent ids.
	PromptIDs []uint32
	// Logprobs is the legacy `logprobs` integer: how many alternatives to
	// list per token (nil: no logprobs).
	Logprobs *int
}

// Completer runs completions. A Backend that implements it serves
// POST /v1/completions; errors map to statuses as Chat's do.
type Completer interface {
	Completion(ctx context.Context, req *CompletionRequest, requestID string) (Generation, error)
}

// DefaultCompletionMaxTokens is max_tokens when a completion request sets
// none, as OpenAI's legacy completions and vLLM default it.
const DefaultCompletionMaxTokens = 16

// MaxCompletionLogprobs bounds the legacy logprobs count.
const MaxCompletionLogprobs = 20

func completionError(param, msg string) error {
	return &prompt.Error{Kind: prompt.ErrBadRequest, Param: param, Msg: msg}
}

// ParseCompletion parses a completions request body. The sampling fields
// are checked by prompt.Parse, as for chat; the prompt, logprobs, echo,
// suffix and best_of are read here.
func ParseCompletion(body []byte) (*CompletionRequest, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, completionError("", fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se))
		}
		return nil, completionError("", "the body must be a JSON object")
	}
	take := func(k string) json.RawMessage {
		v := fields[k]
		delete(fields, k)
		if len(v) == 0 || string(bytes.TrimSpace(v)) == "null" {
			return nil
		}
		return v
	}
	out := &CompletionRequest{}
	rawPrompt := take("prompt")
	if rawPrompt == nil {
		return nil, completionError("prompt", "is required")
	}
	if err := out.parsePrompt(rawPrompt); err != nil {
		return nil, err
	}
	if v := take("echo"); v != nil {
		var echo bool
		if err := json.Unmarshal(v, &echo); err != nil {
			return nil, completionError("echo", "must be a boolean")
		}
		if echo {
			return nil, completionError("echo", "echo=true is not supported")
		}
	}
	if v := take("suffix"); v != nil {
		var s string
		if err := json.Unmarshal(v, &s); err != nil || s != "" {
			return nil, completionError("suffix", "suffix is not supported")
		}
	}
	if v := take("logprobs"); v != nil {
		var n int
		if err := json.Unmarshal(v, &n); err != nil {
			return nil, completionError("logprobs", "must be an integer (the number of alternatives per token)")
		}
		if n < 0 || n > MaxCompletionLogprobs {
			return nil, completionError("logprobs", fmt.Sprintf("must be between 0 and %d", MaxCompletionLogprobs))
		}
		out.Logprobs = &n
	}
	bestOf := take("best_of")
	// Chat-only fields have no meaning here; prompt.Parse must not see them.
	for _, k := range []string{"messages", "top_logprobs", "tools", "tool_choice", "parallel_tool_calls", "documents",
		"chat_template_kwargs", "add_generation_prompt", "continue_final_message", "media_order", "mm_processor_kwargs"} {
		delete(fields, k)
	}
	fields["messages"] = json.RawMessage(`[{"role":"user","content":""}]`)
	b, err := json.Marshal(fields)
	if err != nil {
		return nil, completionError("", err.Error())
	}
	params, err := prompt.Parse(b)
	if err != nil {
		return nil, err
	}
	params.Messages = nil
	if bestOf != nil {
		var k int
		n := 1
		if params.N != nil {
			n = *params.N
		}
		if err := json.Unmarshal(bestOf, &k); err != nil || k != n {
			return nil, completionError("best_of", "best_of is not supported (it may only equal n)")
		}
	}
	if params.MaxTokens == nil {
		d := DefaultCompletionMaxTokens
		params.MaxTokens = &d
	}
	if out.Logprobs != nil {
		params.Logprobs = true
		n := *out.Logprobs
		params.TopLogprobs = &n
	}
	out.Params = params
	return out, nil
}

// parsePrompt accepts a string, a list of one string, a list of token ids,
// or a list of one list of token ids.
func (c *CompletionRequest) parsePrompt(raw json.RawMessage) error {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return completionError("prompt", "must not be empty")
		}
		c.Prompt = s
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return completionError("prompt", "must be a string, a list of token ids, or a list of one of those")
	}
	if len(list) == 0 {
		return completionError("prompt", "must not be empty")
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
			return completionError("prompt", fmt.Sprintf("a list of %d prompts is not supported: send one prompt per request", len(list)))
		}
		return completionError("prompt", "must be a string, a list of token ids, or a list of one of those")
	}
	if json.Unmarshal(list[0], &s) == nil {
		if s == "" {
			return completionError("prompt", "must not be empty")
		}
		c.Prompt = s
		return nil
	}
	if json.Unmarshal(list[0], &ids) == nil && len(ids) > 0 {
		c.PromptIDs = ids
		return nil
	}
	return completionError("prompt", "must be a string, a list of token ids, or a list of one of those")
}
