// Package shm moves tensors between a gateway and a TokenSpeed worker on the
// same host through files in a shared tmpfs (/dev/shm), as the TokenSpeed
// scheduler protocol's TensorData.shm handle (smg.grpc.common.ShmHandle)
// describes, instead of inside the gRPC message. It holds both sides: the
// producer (Pool, Batch, Segment; the gateway) and the consumer (Reader; the
// worker). Linux only.
//
// # Choosing the path
//
// Each worker has a Mode (auto, inline, shm; default auto) and Limits (a
// threshold below which tensors stay inline, default 64 KiB, and the worker's
// gRPC message limit, default 256 MiB, above which tensors never go inline).
// Decide gives the first choice: auto uses shared memory only when the
// worker's scheduler_info["shm_namespace_id"] equals the gateway's
// NamespaceID ("<boot_id>:<st_dev of the directory>"); shm forces it.
// Batch.Place applies it and falls back to inline, counted in
// mmgate_mm_shm_fallbacks_total, when a segment cannot be had (full tmpfs,
// over the budget, directory unusable), or fails with ErrTooLarge (HTTP 413)
// when the tensor does not fit inline either.
//
// # Gateway side
//
//	pool, err := shm.New(shm.Options{Registerer: reg})   // probe, metrics
//	go pool.RunJanitor(ctx)
//	b := pool.NewBatch(reqCtx, requestID)  // released if reqCtx ends first
//	defer b.Release()                       // no-op after Commit
//	buf, err := b.Place(route, nbytes, "image")
//	fill(buf.Bytes())                       // the preprocessor writes here
//	td, err := buf.TensorData(dtype, shape) // seals a segment
//	... send the GenerateRequest; when the worker has taken it:
//	b.Commit()
//
// A segment is created with O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC relative to
// an opened directory descriptor, named prefix + owner id + deadline + 128
// random bits (see name.go), mode 0600 (or 0640 with a configured group),
// reserved in full at creation (a full tmpfs fails there, never with SIGBUS
// later), and mapped so that the producer writes the tensor straight into it.
// Seal makes it read-only; Commit hands it to the worker (which unlinks it
// after reading); Release, and any failure before the worker took the request
// (including an error status from the worker), unlinks every segment of the
// request; so does the end of the request's context, at once, while leaving
// the producers' mappings valid until Release or Commit unmaps them. The pool
// only ever unlinks names with its own prefix.
//
// Bytes held in shared memory (segments being filled, and committed segments
// the worker has not removed yet) are capped by Options.Budget (default half
// the tmpfs). A janitor removes orphans — the worker crashed or never read,
// or a gateway died — by the rule in janitor.go: each name carries its
// owner's deadline, so several gateways and workers can share one directory
// and no live gateway's segment is removed before its own deadline.
//
// # Worker side
//
// Reader.Read accepts an inline payload or a handle. A handle is refused
// (ErrBadHandle) when its name is empty, ".", "..", contains '/' or NUL, or
// lacks an accepted producer prefix (default mmgate's and SMG's
// "smg-tokenspeed-"); when the file is not a regular file (opened
// O_RDONLY|O_NOFOLLOW|O_NONBLOCK relative to the directory descriptor) or is
// shorter than offset+nbytes; or when nbytes differs from prod(shape) ×
// element size. The segment is mapped (zero-copy) or copied, then unlinked
// (unless ReaderOptions.KeepFiles) — after refusals too, but only for names
// with an accepted prefix, so a client cannot make a worker delete other
// files.
//
// # Metrics
//
// Registered on Options.Registerer (never the global registry):
// mmgate_mm_tensors_total and mmgate_mm_tensor_bytes_total {runtime,
// modality, path}, mmgate_mm_shm_fallbacks_total {runtime, reason},
// mmgate_shm_segments_in_use, mmgate_shm_bytes_in_use,
// mmgate_shm_janitor_removed_total, and mmgate_mm_transport_seconds {path}
// (from Place to Commit).
//
// # Concurrency
//
// Pool, Batch and Reader are safe for concurrent use. A Segment's Bytes may be
// filled by one goroutine or split between several by the caller; it must not
// be used after Seal, Commit or Release. View data is valid until View.Close.
package shm
