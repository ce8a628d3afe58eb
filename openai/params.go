package openai

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// MaxN is the largest n (choices per request) accepted.
const MaxN = 128

// MaxTopLogprobs is the largest number of alternatives per token accepted
// (chat's top_logprobs, the completions API's logprobs), as OpenAI and vLLM
// (max_logprobs) accept.
const MaxTopLogprobs = 20

// Params are the fields chat and completions requests share: the model,
// streaming, the output budget and sampling. Optional numbers are pointers
// (nil: not given). Every field is checked once, when the request is
// parsed; a parsed Params is valid on its own (what depends on the model,
// such as max_tokens against the context length, is the gateway's check).
type Params struct {
	Model        string
	Stream       bool
	IncludeUsage bool // stream_options.include_usage
	// MaxTokens is max_completion_tokens, else max_tokens; at least 1.
	MaxTokens *int
	// N is the number of choices, 1 to MaxN.
	N           *int
	Temperature *float64
	TopP        *float64
	TopK        *int
	MinP        *float64
	Seed        *int64
	Stop        []string
	// StopTokenIDs are stop_token_ids (vLLM's extension).
	StopTokenIDs []uint32
	Presence     *float64 // presence_penalty
	Frequency    *float64 // frequency_penalty
	Repetition   *float64 // repetition_penalty
	// LogitBias maps token ids to biases (the JSON keys are decimal ids).
	LogitBias map[uint32]float64
	// Logprobs asks for each output token's log probability, TopLogprobs
	// (0 to MaxTopLogprobs) for that many alternatives.
	Logprobs    bool
	TopLogprobs *int
	IgnoreEOS   bool
	SkipSpecial bool // skip_special_tokens, default true
	MinTokens   *int
	User        string
	// ResponseFormat constrains the output; the zero value is none.
	ResponseFormat ResponseFormat
	// Render holds the fields only vLLM's render endpoints read.
	Render RenderParams
}

// ResponseFormat is response_format: Type "" (absent), "text",
// "json_object" or "json_schema" (then Schema is the JSON schema as sent).
type ResponseFormat struct {
	Type   string
	Schema json.RawMessage
}

// Choices is n, 1 when not given.
func (p *Params) Choices() int {
	if p.N == nil {
		return 1
	}
	return *p.N
}

// rawParams is Params as sent.
type rawParams struct {
	Model         string `json:"model"`
	Stream        *bool  `json:"stream"`
	StreamOptions *struct {
		IncludeUsage         *bool `json:"include_usage"`
		ContinuousUsageStats *bool `json:"continuous_usage_stats"`
	} `json:"stream_options"`
	MaxTokens           *int               `json:"max_tokens"`
	MaxCompletionTokens *int               `json:"max_completion_tokens"`
	N                   *int               `json:"n"`
	Temperature         *float64           `json:"temperature"`
	TopP                *float64           `json:"top_p"`
	TopK                *int               `json:"top_k"`
	MinP                *float64           `json:"min_p"`
	Seed                *int64             `json:"seed"`
	Stop                json.RawMessage    `json:"stop"`
	StopTokenIDs        []uint32           `json:"stop_token_ids"`
	PresencePenalty     *float64           `json:"presence_penalty"`
	FrequencyPenalty    *float64           `json:"frequency_penalty"`
	RepetitionPenalty   *float64           `json:"repetition_penalty"`
	LogitBias           map[string]float64 `json:"logit_bias"`
	IgnoreEOS           *bool              `json:"ignore_eos"`
	SkipSpecialTokens   *bool              `json:"skip_special_tokens"`
	MinTokens           *int               `json:"min_tokens"`
	User                string             `json:"user"`
	ResponseFormat      json.RawMessage    `json:"response_format"`
	rawRender
}

// params checks raw and returns the Params it holds.
func (raw *rawParams) params() (Params, error) {
	p := Params{
		Model: raw.Model, N: raw.N, Temperature: raw.Temperature, TopP: raw.TopP, TopK: raw.TopK, MinP: raw.MinP,
		Seed: raw.Seed, StopTokenIDs: raw.StopTokenIDs, Presence: raw.PresencePenalty, Frequency: raw.FrequencyPenalty,
		Repetition: raw.RepetitionPenalty, MinTokens: raw.MinTokens, User: raw.User,
		Stream:       isTrue(raw.Stream),
		IncludeUsage: raw.StreamOptions != nil && isTrue(raw.StreamOptions.IncludeUsage),
		IgnoreEOS:    isTrue(raw.IgnoreEOS),
		SkipSpecial:  raw.SkipSpecialTokens == nil || *raw.SkipSpecialTokens,
		MaxTokens:    raw.MaxTokens,
	}
	if raw.MaxCompletionTokens != nil {
		p.MaxTokens = raw.MaxCompletionTokens
	}
	if p.MaxTokens != nil && *p.MaxTokens < 1 {
		return p, BadRequest("max_tokens", "must be at least 1")
	}
	if p.N != nil && (*p.N < 1 || *p.N > MaxN) {
		return p, BadRequest("n", fmt.Sprintf("must be between 1 and %d", MaxN))
	}
	var err error
	if p.Stop, err = parseStop(raw.Stop); err != nil {
		return p, err
	}
	if p.LogitBias, err = parseLogitBias(raw.LogitBias); err != nil {
		return p, err
	}
	if p.ResponseFormat, err = parseResponseFormat(raw.ResponseFormat); err != nil {
		return p, err
	}
	if p.Render, err = raw.render(); err != nil {
		return p, err
	}
	return p, nil
}

// setTopLogprobs sets the alternatives per token (nil: none asked for).
func (p *Params) setTopLogprobs(n *int, param string) error {
	if n != nil && (*n < 0 || *n > MaxTopLogprobs) {
		return BadRequest(param, fmt.Sprintf("must be between 0 and %d", MaxTopLogprobs))
	}
	p.TopLogprobs = n
	return nil
}

func isTrue(b *bool) bool { return b != nil && *b }

func parseStop(raw json.RawMessage) ([]string, error) {
	raw = nonNull(raw)
	if raw == nil {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, BadRequest("stop", "must be a string or a list of strings")
	}
	return list, nil
}

func parseLogitBias(raw map[string]float64) (map[uint32]float64, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	out := make(map[uint32]float64, len(raw))
	for k, v := range raw {
		id, err := strconv.ParseUint(k, 10, 32)
		if err != nil {
			return nil, BadRequest("logit_bias", fmt.Sprintf("key %q is not a token id", k))
		}
		out[uint32(id)] = v
	}
	return out, nil
}

func parseResponseFormat(raw json.RawMessage) (ResponseFormat, error) {
	if nonNull(raw) == nil {
		return ResponseFormat{}, nil
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(raw, &rf); err != nil {
		return ResponseFormat{}, BadRequest("response_format", "must be an object with a type")
	}
	switch rf.Type {
	case "", "text", "json_object":
		return ResponseFormat{Type: rf.Type}, nil
	case "json_schema":
		if rf.JSONSchema == nil || len(rf.JSONSchema.Schema) == 0 {
			return ResponseFormat{}, BadRequest("response_format.json_schema.schema", "a schema is required")
		}
		return ResponseFormat{Type: rf.Type, Schema: rf.JSONSchema.Schema}, nil
	}
	return ResponseFormat{}, BadRequest("response_format.type", fmt.Sprintf("%q is not text, json_object or json_schema", rf.Type))
}
