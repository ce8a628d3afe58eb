// Package sglang is SGLang's gateway protocol
// (sglang.grpc.scheduler.SglangScheduler, as SGLang's gRPC mode serves it
// through SMG's servicer) behind the engine's protocol-neutral seam:
// Protocol implements protocol.Protocol. It is the only gateway package
// that knows the protocol's messages.
//
// # Encoding (Encode)
//
// A neutral protocol.Request becomes one GenerateRequest: the prompt as
// tokenized (the servicer requires it), stream, return_logprob and
// top_logprobs_num, logprob_start_len −1 (no prompt log-probabilities),
// and SamplingParams with every value explicit, because the gRPC path skips
// SGLang's range checks and protobuf's zeros would reach the sampler:
// temperature 1, top_p 1, top_k −1 (no limit; also for 0 or a negative
// value), min_p and the penalties 0, repetition_penalty 1 when not given;
// max_new_tokens, min_new_tokens, ignore_eos, skip_special_tokens as given;
// spaces_between_special_tokens true; n at least 1; logit_bias with decimal
// keys; json_schema, json_object as the schema {"type":"object"}, regex,
// and a grammar as ebnf_grammar.
//
// Stop strings are not sent: SGLang's gRPC workers run without a tokenizer
// and cannot match them. As SMG does, each stop string that is one token
// (protocol.Sampling.StopTokens) joins the stop ids, and the gateway, which
// matches every stop string on the text it decodes, trims at the others.
// Refused with protocol.ErrUnsupportedParam: a seed (the servicer passes
// custom_params to custom logit processors only and never sets SGLang's
// sampling seed, so it could not be honoured) and a choice constraint.
//
// Media: images only (a video fails with protocol.ErrUnsupportedParam),
// joined as vLLM joins them (smgwire.Flatten): pixel_values inline
// (TensorData has no shared-memory payload), float32, with every side
// tensor (the sizes tensor included) in model_specific_tensors; each
// image's encoded bytes in image_data (protocol.MediaItem.Raw, required),
// modalities ["image"], im_token_id, and mm_placeholders the pad runs of
// every item in prompt order. The servicer builds one multimodal item of
// the whole batch from these.
//
// # Decoding (the stream rules)
//
// Streaming: a chunk per step with that step's token ids and
// completion_tokens as a running total; for the last step the chunk and
// then a complete carrying the same ids. Tokens and log-probabilities come
// from the chunks only; the complete gives the finish reason, the matched
// stop (SGLang reports the end-of-sequence id too) and the counts. Without
// stream, the completes carry every token, and with n > 1 they all say
// index 0: the decoder numbers them in arrival order.
//
// # Capabilities and info
//
// Encoder inputs in float32 only; no shared memory; items joined
// (protocol.LayoutFlat); one modality; the raw media bytes wanted. A vision
// model (supports_vision) takes images. Health is GetServerInfo (a worker
// that answers and is not paused): SGLang's HealthCheck runs a one-token
// generation and answers after at least a second, too heavy to poll.
//
// # Concurrency
//
// Protocol and its clients are safe for concurrent use; a stream returned by
// Generate is read from one goroutine.
package sglang
