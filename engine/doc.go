// Package engine is the gateway's side of the inference workers: a registry
// of workers speaking the TokenSpeed scheduler gRPC protocol
// (tokenspeed.grpc.scheduler, as SMG's gateway speaks it), their health and
// model info, the selection policy, and the Generate client with its
// shared-memory lease handling and abort on cancel.
//
// # Workers
//
// Each worker is configured by URL (grpc://HOST:PORT, grpcs://HOST:PORT for
// TLS with optional client certificates (WorkerConfig.TLS), or
// unix:///path; see ParseWorkerURL) with a tensor transport (auto, inline, shm), an inline
// threshold, an optional encoder dtype override and a gRPC message limit.
// Start reads each worker's GetModelInfo, GetServerInfo (its
// scheduler_info["shm_namespace_id"] is compared with the pool's namespace id
// for transport auto) and HealthCheck, then runs one health loop per worker:
// every HealthInterval a healthy worker is checked (HealthCheck, then
// GetLoads for the least_loaded policy); a failing worker leaves the
// rotation, and an unhealthy one is re-read from scratch (info included)
// until it answers again. A connection failure during Generate also takes the
// worker out at once.
//
// Pick answers by served model name: ErrModelNotFound when no worker reached
// so far serves it, ErrModality when the model does not take a requested
// modality (from GetModelInfo; no media is fetched), ErrNoWorker when none of
// its workers is healthy. least_loaded takes the worker with the fewest
// requests (other clients' running + waiting requests from the last GetLoads
// plus this gateway's in-flight streams); round_robin rotates.
//
// # Lease rule
//
// The shm.Batch given to Generate holds the request's shared-memory
// segments. Any failure before the worker's first response — a connection
// failure, an oversized message, an error status from the worker (which
// then has read, or refused, the tensors), the caller's context ending —
// releases the batch: every segment is unlinked by the gateway. The first
// response proves the worker took the request and read its tensors: the
// batch is committed and the segments are the worker's (it unlinks them; the
// pool's janitor removes what a crashed worker leaves). A request is sent
// again to another worker only before the first response, only after
// UNAVAILABLE (the connection failed), and only to a healthy worker of the
// same model whose route can carry the tensors exactly as they were placed
// for the first one (shared memory needs a worker sharing the namespace,
// inline tensors must fit its limits); otherwise the error is returned.
//
// A worker that advertises scheduler_info["shm_keep_after_read"] = true
// (it leaves segments in place and is done with their bytes once it
// answers) and shares the namespace gets Route.Reuse: its segments are not
// unlinked on commit or release but go back to the pool's free list and are
// refilled, under fresh names, for later requests (see the shm package).
// Absent or false keeps the behaviour above, as real TokenSpeed workers
// expect.
//
// When the caller's context ends while a stream is open (client disconnect,
// deadline), or the caller closes a stream early, an Abort for the request
// id is sent to the worker in the background, bounded by AbortTimeout, and
// the stream's gRPC call is cancelled.
//
// # Errors
//
// Worker failures are *WorkerError values carrying the gRPC code and
// message; they unwrap to ErrWorkerRejected (INVALID_ARGUMENT), ErrTimeout
// (DEADLINE_EXCEEDED), ErrOverloaded (RESOURCE_EXHAUSTED) or ErrWorker
// (anything else). The server maps them to HTTP statuses.
//
// # Concurrency
//
// Engine and Worker are safe for concurrent use. Worker info and route are
// immutable snapshots swapped under a lock; in-flight counts are atomic.
// All background goroutines (health loops, abort calls) belong to the
// context given to Start and end with Close, which waits for them. A Stream's
// Recv must be called from one goroutine; Close may be called from any.
package engine
