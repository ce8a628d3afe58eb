// Package shm moves tensors between a gateway and a worker on the same host
// through files in a shared tmpfs (/dev/shm), as the engine protocols'
// shared-memory handle (smg.grpc.common.ShmHandle) describes, instead of
// inside the gRPC message. It holds both sides: the producer (Pool, Batch,
// Segment; the gateway) and the consumer (Reader; the worker). It knows no
// protocol: tensors are described by Payload and Handle on the gateway side
// and by Wire on the worker side, and each protocol package converts its own
// messages (engine/tokenspeed/tensordata for TokenSpeed). Linux only.
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
//	p, err := buf.Payload(dtype, shape)     // seals a segment
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
// and no live gateway's segment is removed before its own deadline. A
// gateway that stops removes what it left itself (Pool.RemoveOwn: the names
// with its prefix and owner id).
//
// # Reusing segments
//
// Creating, reserving, mapping and unmapping fresh tmpfs pages for every
// tensor costs more than filling them. A worker that does not unlink
// segments after reading them (ReaderOptions.KeepFiles; TokenSpeed's
// TOKENSPEED_UNLINK_MM_SHM_AFTER_READ=0) and is done with their bytes once
// it has answered advertises scheduler_info["shm_keep_after_read"] = true;
// the engine then sets Route.Reuse (only with a namespace match and the shm
// path). Absent or false means the behaviour above. With Route.Reuse, Place
// takes an idle segment of a fitting size from the pool's free list (or
// creates one), renames it to a fresh name with a fresh deadline, and
// returns its first nbytes (the rest zeroed; the handle's nbytes is the
// tensor's); Commit (the worker answered, so it has read them) puts it
// back, still mapped; Release and an abandoned batch unlink as usual, since a
// worker that has not answered may still be reading. A segment is in one batch or on the free list,
// never both, and a worker never sees a name twice. The free list holds at
// most Options.ReuseCap bytes (default 1 GiB or a quarter of the budget),
// counts against the budget (an allocation over it evicts idle segments
// first), and is unlinked by Close. Janitors: this pool's never removes its
// idle segments and renames those near their deadline on every sweep, so no
// other gateway's janitor (which deletes only after a name's deadline)
// removes them while the pool sweeps; after the pool's process dies they
// expire like any orphan. Details in reuse.go.
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
// (unless ReaderOptions.KeepFiles; Reader.KeepsFiles tells the worker to
// advertise shm_keep_after_read) — after refusals too, but only for names
// with an accepted prefix, so a client cannot make a worker delete other
// files.
//
// # Metrics
//
// Registered on Options.Registerer (never the global registry):
// mmgate_mm_tensors_total and mmgate_mm_tensor_bytes_total {runtime,
// modality, path}, mmgate_mm_shm_fallbacks_total {runtime, reason},
// mmgate_shm_segments_in_use, mmgate_shm_bytes_in_use,
// mmgate_shm_janitor_removed_total, mmgate_mm_transport_seconds {path}
// (from Place to Commit), mmgate_shm_reuse_total {outcome: hit, miss} and
// mmgate_shm_reuse_free_bytes.
//
// # Concurrency
//
// Pool, Batch and Reader are safe for concurrent use. A Segment's Bytes may be
// filled by one goroutine or split between several by the caller; it must not
// be used after Seal, Commit or Release. View data is valid until View.Close.
package shm
