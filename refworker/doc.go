// Package refworker is mmgate's reference worker: a complete server of the
// TokenSpeed scheduler gRPC protocol (tokenspeed.grpc.scheduler) that needs no
// GPU and no weights. It reads every multimodal tensor it is sent (inline or
// through /dev/shm, with the shm package's worker-side reader), validates the
// request as the real worker does (placeholders, dtypes, byte counts,
// conflicting pad ids, and the side tensors the model's family requires per
// modality — Qwen-VL's grids), and answers Generate with a deterministic
// text describing what it received — per item the modality, what the family
// reports (the grid), dtype, transport path and a fingerprint of the
// encoder-input bytes — tokenized with the model's own tokenizer and
// streamed token by token.
//
// It serves three purposes: the gateway's embedded default (so mmgate runs end
// to end on any machine), the peer of end-to-end and failure tests, and the
// worker side of benchmarks.
//
// With a reader that keeps segments after reading them
// (shm.ReaderOptions.KeepFiles, `mmgate worker --keep-shm`) it advertises
// scheduler_info["shm_keep_after_read"] = true, and gateways reuse segments.
//
// A Server is safe for concurrent use; each Generate call is independent and
// cancellable through its context or the Abort RPC.
package refworker
