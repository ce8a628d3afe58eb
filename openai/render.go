package openai

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// This file answers: which fields of a chat or completions request do
// vLLM's render endpoints read besides the ones Params already holds? The
// render answer's flags, the envelope vLLM echoes into its answer, vLLM's
// sampling extensions, and the fields that change how vLLM renders a
// prompt (a renderer refuses those it cannot reproduce). Names and
// defaults are vLLM's ChatCompletionRequest / CompletionRequest ones.

// MaxCacheSalt is the longest cache_salt accepted, in characters, as vLLM
// bounds it.
const MaxCacheSalt = 1024

// RenderParams are the render-only fields of a request. Raw JSON values are
// copies, never the body's memory.
type RenderParams struct {
	// ReturnMMKwargs is return_mm_kwargs: true (vLLM's default) asks for
	// each media item's processor output in features.kwargs_data.
	ReturnMMKwargs bool
	// CacheSalt is cache_salt (1 to MaxCacheSalt characters), nil when
	// absent.
	CacheSalt *string
	// Priority is priority (default 0).
	Priority int64
	// StreamOptions is stream_options with vLLM's defaults filled in;
	// nil when absent.
	StreamOptions *StreamOptions

	// BadWords, IncludeStopStr (include_stop_str_in_output),
	// SpacesBetweenSpecial (spaces_between_special_tokens, default true)
	// and AllowedTokenIDs are vLLM's sampling fields of those names.
	BadWords             []string
	IncludeStopStr       bool
	SpacesBetweenSpecial bool
	AllowedTokenIDs      []uint32
	// KVTransfer, ECTransfer and Xargs are kv_transfer_params,
	// ec_transfer_params and vllm_xargs (JSON objects), nil when absent.
	KVTransfer, ECTransfer, Xargs json.RawMessage

	// UseBeamSearch, TruncatePromptTokens, ChatTemplate and
	// AddSpecialTokens (nil: not given) change what vLLM renders.
	UseBeamSearch        bool
	TruncatePromptTokens *int64
	ChatTemplate         *string
	AddSpecialTokens     *bool
}

// StreamOptions is stream_options as vLLM models it: include_usage
// defaults to true, continuous_usage_stats to false.
type StreamOptions struct {
	IncludeUsage         bool `json:"include_usage"`
	ContinuousUsageStats bool `json:"continuous_usage_stats"`
}

// rawRender is RenderParams as sent.
type rawRender struct {
	ReturnMMKwargs       *bool           `json:"return_mm_kwargs"`
	CacheSalt            *string         `json:"cache_salt"`
	Priority             *int64          `json:"priority"`
	BadWords             []string        `json:"bad_words"`
	IncludeStopStr       *bool           `json:"include_stop_str_in_output"`
	SpacesBetweenSpecial *bool           `json:"spaces_between_special_tokens"`
	AllowedTokenIDs      []uint32        `json:"allowed_token_ids"`
	KVTransfer           json.RawMessage `json:"kv_transfer_params"`
	ECTransfer           json.RawMessage `json:"ec_transfer_params"`
	Xargs                json.RawMessage `json:"vllm_xargs"`
	UseBeamSearch        *bool           `json:"use_beam_search"`
	TruncatePromptTokens *int64          `json:"truncate_prompt_tokens"`
	ChatTemplate         *string         `json:"chat_template"`
	AddSpecialTokens     *bool           `json:"add_special_tokens"`
}

// render checks the render-only fields and returns what they hold.
func (raw *rawParams) render() (RenderParams, error) {
	r := raw.rawRender
	p := RenderParams{
		ReturnMMKwargs:       r.ReturnMMKwargs == nil || *r.ReturnMMKwargs,
		CacheSalt:            r.CacheSalt,
		BadWords:             r.BadWords,
		IncludeStopStr:       isTrue(r.IncludeStopStr),
		SpacesBetweenSpecial: r.SpacesBetweenSpecial == nil || *r.SpacesBetweenSpecial,
		AllowedTokenIDs:      r.AllowedTokenIDs,
		UseBeamSearch:        isTrue(r.UseBeamSearch),
		TruncatePromptTokens: r.TruncatePromptTokens,
		ChatTemplate:         r.ChatTemplate,
		AddSpecialTokens:     r.AddSpecialTokens,
	}
	if r.Priority != nil {
		p.Priority = *r.Priority
	}
	if s := r.CacheSalt; s != nil {
		if n := utf8.RuneCountInString(*s); n < 1 || n > MaxCacheSalt {
			return p, BadRequest("cache_salt", fmt.Sprintf("must be a string of 1 to %d characters", MaxCacheSalt))
		}
	}
	if so := raw.StreamOptions; so != nil {
		p.StreamOptions = &StreamOptions{
			IncludeUsage:         so.IncludeUsage == nil || *so.IncludeUsage,
			ContinuousUsageStats: isTrue(so.ContinuousUsageStats),
		}
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  *json.RawMessage
	}{{"kv_transfer_params", r.KVTransfer, &p.KVTransfer}, {"ec_transfer_params", r.ECTransfer, &p.ECTransfer}, {"vllm_xargs", r.Xargs, &p.Xargs}} {
		if v := nonNull(f.raw); v != nil {
			if !isObject(v) {
				return p, BadRequest(f.name, "must be an object")
			}
			*f.dst = v
		}
	}
	for i, w := range r.BadWords {
		if w == "" {
			return p, BadRequest(fmt.Sprintf("bad_words[%d]", i), "must not be empty")
		}
	}
	return p, nil
}
