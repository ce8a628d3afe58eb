package openai

import "encoding/json"

// This file answers: what do vLLM's render endpoints answer? One
// GenerateRequest per prompt (the body vLLM's /inference/v1/generate
// takes), written the way vLLM writes it: pydantic's model_dump of every
// field, nulls included, in declaration order (vLLM's
// entrypoints/.../token_in_token_out/protocol.py).

// GenerateRequest is vLLM's GenerateRequest as a render endpoint answers it.
type GenerateRequest struct {
	// RequestID is "chatcmpl-…" (chat) or "cmpl-…" (completions).
	RequestID string `json:"request_id"`
	// TokenIDs are the final prompt ids, media placeholders expanded.
	TokenIDs []uint32 `json:"token_ids"`
	// TokenOffsets are per-token character offsets; never computed (null).
	TokenOffsets [][2]int `json:"token_offsets"`
	// Features are the media items' hashes and ranges; nil for a
	// text-only prompt.
	Features *MultiModalFeatures `json:"features"`
	// ContentParts is generate's raw-media alternative; null from render.
	ContentParts []json.RawMessage `json:"content_parts"`
	// SamplingParams are the request's sampling parameters as vLLM
	// resolves them.
	SamplingParams SamplingParams `json:"sampling_params"`
	// Model echoes the request's model (null when it gave none).
	Model *string `json:"model"`
	// ReasoningEnded, ReasoningParserKwargs and ReturnTokenIDs are set by
	// a vLLM with a reasoning parser or by generate's callers; null here.
	ReasoningEnded        *bool           `json:"reasoning_ended"`
	ReasoningParserKwargs json.RawMessage `json:"reasoning_parser_kwargs"`
	ReturnTokenIDs        *bool           `json:"return_token_ids"`
	// OutputMode is "tokens".
	OutputMode string `json:"output_mode"`
	// Stream echoes stream; StreamOptions echoes stream_options when
	// streaming (null otherwise).
	Stream        bool           `json:"stream"`
	StreamOptions *StreamOptions `json:"stream_options"`
	CacheSalt     *string        `json:"cache_salt"`
	Priority      int64          `json:"priority"`
	// KVTransferParams and ECTransferParams are null from render (the
	// request's ones travel in SamplingParams.ExtraArgs).
	KVTransferParams json.RawMessage `json:"kv_transfer_params"`
	ECTransferParams json.RawMessage `json:"ec_transfer_params"`
}

// MultiModalFeatures are vLLM's per-modality media item lists: one entry
// per item in prompt order under its modality ("image", "video",
// "audio"); every map has the same keys and lists of the same lengths.
type MultiModalFeatures struct {
	// MMHashes are the items' hashes, lower-case hex.
	MMHashes map[string][]string `json:"mm_hashes"`
	// MMPlaceholders are the items' spans in the token ids: sorted and
	// non-overlapping across modalities.
	MMPlaceholders map[string][]PlaceholderRange `json:"mm_placeholders"`
	// KwargsData (each item's processor output, base64 msgpack) and
	// MMMetadata; nil (null) when the request set return_mm_kwargs false.
	KwargsData map[string][]*string `json:"kwargs_data"`
	MMMetadata map[string][]*string `json:"mm_metadata"`
}

// PlaceholderRange is where one media item lies in the token ids.
type PlaceholderRange struct {
	Offset int `json:"offset"`
	Length int `json:"length"`
}

// SamplingParams is vLLM's SamplingParams as vLLM writes it in JSON:
// msgspec's omit_defaults encoding, so a field at its vLLM default is left
// out (nil or zero here, with omitempty), while the fields vLLM always
// sets away from their defaults (stop, stop_token_ids, bad_words,
// output_kind, skip_clone, skip_reading_prefix_cache) are always written.
// Fields are in vLLM's declaration order.
type SamplingParams struct {
	N                 *int     `json:"n,omitempty"`
	PresencePenalty   *float64 `json:"presence_penalty,omitempty"`
	FrequencyPenalty  *float64 `json:"frequency_penalty,omitempty"`
	RepetitionPenalty *float64 `json:"repetition_penalty,omitempty"`
	Temperature       *float64 `json:"temperature,omitempty"`
	TopP              *float64 `json:"top_p,omitempty"`
	TopK              *int     `json:"top_k,omitempty"`
	MinP              *float64 `json:"min_p,omitempty"`
	Seed              *int64   `json:"seed,omitempty"`
	Stop              []string `json:"stop"`
	StopTokenIDs      []uint32 `json:"stop_token_ids"`
	IgnoreEOS         bool     `json:"ignore_eos,omitempty"`
	MaxTokens         *int     `json:"max_tokens,omitempty"`
	MinTokens         int      `json:"min_tokens,omitempty"`
	Logprobs          *int     `json:"logprobs,omitempty"`
	// SkipSpecialTokens and SpacesBetweenSpecialTokens are set only when
	// false (their default is true).
	SkipSpecialTokens          *bool `json:"skip_special_tokens,omitempty"`
	SpacesBetweenSpecialTokens *bool `json:"spaces_between_special_tokens,omitempty"`
	IncludeStopStrInOutput     bool  `json:"include_stop_str_in_output,omitempty"`
	// OutputKind is vLLM's RequestOutputKind: 1 DELTA (streaming), 2
	// FINAL_ONLY.
	OutputKind int  `json:"output_kind"`
	SkipClone  bool `json:"skip_clone"`
	// OutputTextBufferLength is the longest stop string's length minus
	// one (in characters) when stop strings are not kept in the output.
	OutputTextBufferLength int                `json:"output_text_buffer_length,omitempty"`
	StructuredOutputs      *StructuredOutputs `json:"structured_outputs,omitempty"`
	LogitBias              map[uint32]float64 `json:"logit_bias,omitempty"`
	AllowedTokenIDs        []uint32           `json:"allowed_token_ids,omitempty"`
	// ExtraArgs is an object: vllm_xargs' entries, then
	// kv_transfer_params and ec_transfer_params under those keys.
	ExtraArgs              json.RawMessage `json:"extra_args,omitempty"`
	BadWords               []string        `json:"bad_words"`
	SkipReadingPrefixCache bool            `json:"skip_reading_prefix_cache"`
}

// Output kinds of SamplingParams.OutputKind (vLLM's RequestOutputKind).
const (
	OutputDelta     = 1
	OutputFinalOnly = 2
)

// StructuredOutputs is vLLM's StructuredOutputsParams, its public fields:
// JSON is a JSON schema (json_schema response formats), JSONObject is set
// for json_object.
type StructuredOutputs struct {
	JSON                        json.RawMessage `json:"json"`
	Regex                       *string         `json:"regex"`
	Choice                      []string        `json:"choice"`
	Grammar                     *string         `json:"grammar"`
	JSONObject                  *bool           `json:"json_object"`
	DisableAnyWhitespace        bool            `json:"disable_any_whitespace"`
	DisableAdditionalProperties bool            `json:"disable_additional_properties"`
	WhitespacePattern           *string         `json:"whitespace_pattern"`
	StructuralTag               *string         `json:"structural_tag"`
}
