// Package vllm is vLLM's gateway protocol (vllm.grpc.engine.VllmEngine, as
// `vllm serve --grpc` serves it through SMG's servicer) behind the engine's
// protocol-neutral seam: Protocol implements protocol.Protocol. It is the
// only gateway package that knows the protocol's messages.
//
// # Encoding (Encode)
//
// A neutral protocol.Request becomes one GenerateRequest: the prompt as
// tokenized (original_text and input_ids), stream, and SamplingParams:
// temperature only when given (the servicer then uses 1.0); top_p 1,
// top_k 0 (no limit; a negative top_k too), min_p and the penalties 0,
// repetition_penalty 1 when not given; max_tokens, min_tokens, stop strings
// (vLLM matches them), stop ids, ignore_eos, skip_special_tokens as given;
// spaces_between_special_tokens true; n at least 1; logprobs = the number
// of alternatives when log-probabilities are asked for; seed, which the
// message holds as int32 (a seed outside that range is refused with
// protocol.ErrUnsupportedParam rather than changed); logit_bias (token ids
// up to 2³¹−1); the constraint (json_schema, json_object as the schema
// {"type":"object"} as SMG sends it, regex, grammar, choice).
//
// The media items (one modality per request: several fail with
// protocol.ErrUnsupportedParam) become one MultimodalInputs, by the field
// layout each item carries (protocol.MediaItem.Fields, from the model's
// family; smgwire.Flatten): pixel_values is every item's encoder input
// joined along dim 0 (one shared-memory range or one inline buffer, as the
// pipeline placed them: protocol.LayoutFlat); model_specific_tensors hold
// the batched side tensors joined, the shared ones once, and the sizes
// tensor (int64, each item's rows) of a flat input; flat_keys maps
// "pixel_values" (the message's name of the input, which the servicer
// renames to pixel_values_videos for a video) to the sizes tensor;
// batched_keys are the layout's, and "pixel_values" for a batched input
// (no sizes tensor: one row per item, as SMG declares it, since the
// servicer shares any tensor it is not told how to divide);
// keep_on_cpu_keys are the layout's; im_token_id is the
// items' pad token; mm_placeholders one range per item (its structural
// range, else from its first pad run to its last), mm_hashes one per item
// (its CacheKey); modality IMAGE or VIDEO. Tensors must be float32, int64
// or uint32, the dtypes the servicer accepts. Shared-memory handles go as
// placed; the servicer unlinks each file after its one read.
//
// # Decoding (the stream rules)
//
// Streaming: a chunk per engine step and sequence with that step's token
// ids and completion_tokens = their count; then, for each sequence that
// finished, a complete built from the same step: its output_ids repeat the
// last chunk's. The decoder takes tokens and log-probabilities from the
// chunks only and counts each choice's tokens itself; the complete gives
// the finish reason, the matched stop (vLLM reports a stop token or string,
// nothing for an end-of-sequence) and the prompt and cached counts.
// Without stream: one complete per sequence carrying all its tokens. A
// complete with finish_reason "error" (the engine returned no output) is a
// worker error (INTERNAL).
//
// # Capabilities and info
//
// Encoder inputs in float32 only (the servicer casts floats to the model's
// dtype itself); shared memory; items joined (protocol.LayoutFlat); one
// modality per request; no raw media bytes. A vision model (supports_vision)
// takes images and videos. GetServerInfo gives the shared-memory namespace
// id (vLLM reports no keep-after-read); GetModelInfo the served name, model
// type, context length, end-of-sequence ids and sampling defaults.
//
// # Concurrency
//
// Protocol and its clients are safe for concurrent use; a stream returned by
// Generate is read from one goroutine.
package vllm
