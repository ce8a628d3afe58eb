// Package refworker is mmgate's reference worker: a complete server of the
// engine protocols mmgate speaks — TokenSpeed (tokenspeed.grpc.scheduler),
// vLLM (vllm.grpc.engine) and SGLang (sglang.grpc.scheduler) — that needs
// no GPU and no weights.
//
// One core (Server) holds what is the same for every protocol: the model
// (config.json and its family from the registry), the checks of each media
// item (placeholder ranges over the prompt, a float encoder input, and the
// family's check of the side tensors against the pixels and the
// embedding positions — Qwen-VL's grids), the reply, and the generation
// loop. The reply is a deterministic text describing what the worker
// received — per item the modality, what the family reports (the grid),
// dtype, transport path and a fingerprint of the item's encoder-input
// bytes (and, for SGLang, of the encoded image bytes it carries) — tokenized with the model's own tokenizer and generated token by
// token for each of the n choices (stop ids and strings, min and max
// tokens, ignore_eos, stand-in log-probabilities).
//
// Each protocol is a thin layer (Options.Protocol; Register serves it) that
// reads that protocol's messages into the core's items and writes the
// generation as that protocol's stream, applying the rules of SMG's
// servicer for it (TokenSpeedServer, VLLMServer, SGLangServer document
// them): TokenSpeed one item per message item; vLLM the dtype whitelist,
// the flat, batched and shared split by the field-layout keys, sizes that
// add up, structural ranges and shared memory read once and unlinked;
// SGLang inline tensors and one whole-batch item, which the reference
// divides by the family's layout to describe each image. Where the real
// servicer silently ignores something a gateway got wrong (media without
// pixels, stop strings SGLang cannot match, zero sampling values), the
// reference refuses it, so that tests catch it.
//
// It serves three purposes: the gateway's embedded worker (so mmgate runs
// end to end on any machine), the peer of end-to-end and failure tests for
// every protocol, and the worker side of benchmarks.
//
// With a reader that keeps segments after reading them
// (shm.ReaderOptions.KeepFiles, `mmgate worker --keep-shm`) the TokenSpeed
// layer advertises scheduler_info["shm_keep_after_read"] = true, and
// gateways reuse segments; vLLM's protocol has no such field.
//
// Open builds a Process, a worker ready to serve a listener: the Server
// with the model's tokenizer, a shared-memory reader and a gRPC server (TLS
// when asked), as `mmgate worker` and the gateway's embedded worker run it.
//
// A Server is safe for concurrent use; each Generate call is independent and
// cancellable through its context or the Abort RPC.
package refworker
