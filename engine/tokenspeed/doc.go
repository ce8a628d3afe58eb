// Package tokenspeed is the TokenSpeed scheduler protocol
// (tokenspeed.grpc.scheduler.TokenSpeedScheduler, as SMG's gateway speaks
// it) behind the engine's protocol-neutral seam: Protocol implements
// protocol.Protocol. It is the only gateway package that knows the protocol's
// messages; the engine keeps the worker registry, health, selection,
// retries, aborts and shared-memory leases for every protocol.
//
// # Encoding (Encode)
//
// A neutral protocol.Request becomes one GenerateRequest: the prompt ids and
// text in tokenized, the sampling parameters in SamplingParams (n at least
// 1; seed, which the message lacks, as custom_params["seed"]; logit_bias
// keys as decimal token ids; json_object as the JSON schema
// {"type":"object"}; a grammar as ebnf_grammar; a choice constraint, which
// the protocol cannot express, fails with protocol.ErrUnsupportedParam),
// logprobs as return_logprob and top_logprobs_num, and one MultimodalItem
// per media item in order: its modality, content hash, encoder_input (the
// item's Input tensor), model_specific_tensors (its Side tensors by name),
// placeholders (its pad runs) and placeholder_token_id. Tensors travel
// inline or as shm handles exactly as the request placed them
// (tensordata.Encode). The structural range and raw media bytes have no
// field in this protocol and are not sent.
//
// # Decoding (the stream rules)
//
// With stream set the worker sends chunks with each step's new token ids,
// then for each choice a complete whose output_ids repeat tokens already
// streamed: every token streamed so far (SMG's older servicers) or the last
// step's (the current one). The decoder takes the text from the chunks:
// a complete adds only the tokens of its output_ids beyond what the choice
// streamed, when the streamed ids are their prefix (a choice that ends
// without a chunk), and nothing otherwise. Without stream, the complete's
// output_ids are the choice's tokens. Finish reason, matched stop and the
// token counts come from the complete.
//
// # Capabilities
//
// Encoder inputs in float32, bfloat16 or float16; shared memory; one tensor
// per item (protocol.LayoutPerItem); items of several modalities in one
// request; no raw media bytes. The worker's modalities come from
// GetModelInfo (supported_modalities, else images and videos for a vision
// model), its shared-memory namespace and keep-after-read from GetServerInfo
// (scheduler_info["shm_namespace_id"], ["shm_keep_after_read"]).
//
// # Concurrency
//
// Protocol and its clients are safe for concurrent use; a stream returned by
// Generate is read from one goroutine.
package tokenspeed
