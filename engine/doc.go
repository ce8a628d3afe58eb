// Package engine is the gateway's side of the inference workers, for every
// engine protocol: a registry of workers, protocol detection, their health
// and model info, the selection policy, and the Generate client with its
// shared-memory lease handling, retries and abort on cancel. What differs
// between protocols — messages, stream rules, capabilities — lives behind
// protocol.Protocol (package engine/protocol), one package per protocol
// (engine/tokenspeed); the set in use is Options.Protocols
// (engine/builtin.Protocols for the gateway).
//
// # Workers
//
// Each worker is configured by URL (grpc://HOST:PORT, grpcs://HOST:PORT for
// TLS with optional client certificates (WorkerConfig.TLS), or
// unix:///path; see ParseWorkerURL) with a tensor transport (auto, inline,
// shm), an inline threshold, an optional encoder dtype override, a gRPC
// message limit and an optional runtime that forces its protocol. Start
// reaches every worker: it finds the worker's protocol (the configured one,
// or the first of Options.Protocols whose info call the worker implements;
// UNIMPLEMENTED means "not this one"), reads its info (the protocol maps it
// to a neutral protocol.Info: served name, model type, context length,
// modalities, encoder dtype, shared-memory namespace id compared with the
// pool's for transport auto, keep-after-read) and checks its health. Then
// one health loop per worker runs: every HealthInterval a healthy worker is
// checked (health, then loads for the least_loaded policy); a failing
// worker leaves the rotation, and an unhealthy one is reached again from
// scratch (protocol and info included) until it answers. A connection
// failure during Generate also takes the worker out at once.
//
// Workers can be added and removed while the engine runs (Add, Remove),
// and the engine may start with none: an added worker is reached at once in
// the background; a removed one gets no new request (one that picked it
// just before goes to another worker, as after a failed connection), its
// streams in flight finish, and its connection closes when the last one
// ends. WorkerConfig.Model gives a worker another served name than the one
// it reports.
//
// A worker's Capabilities are its protocol's (encoder dtypes, shared
// memory, item layout, mixed modalities, raw media) with the modalities and
// keep-after-read it reported; its Route (what shm.Batch.Place needs) and
// EncoderDType follow from them. Pick answers by served model name:
// ErrModelNotFound when no worker reached so far serves it and it is not a
// served model name, ErrModality when none of its workers takes the
// request's modalities (one it lacks, or several in one request where the
// protocol cannot carry that; no media is fetched), ErrNoWorker when none
// of the capable workers is healthy. Served model names are remembered
// (Options.Models, and every name a worker reported): a model whose last
// worker left is ErrNoWorker (503), not ErrModelNotFound (404), and is still
// listed by Models.
//
// # Policies
//
// Pick chooses among the healthy capable workers by Options.Policy,
// reading what the Routing input gives:
//
//   - least_loaded (default): the fewest requests (other clients' running
//     and waiting requests from the last loads call plus this gateway's
//     in-flight streams), ties broken by rotation;
//   - round_robin: rotation;
//   - power_of_two: the less loaded of two drawn at random;
//   - consistent_hash: the first usable worker clockwise from Routing.Key
//     on a ring of the workers' URLs (150 points each), so a session stays
//     on its worker while it lives and only the keys of a removed worker
//     move;
//   - cache_aware: SMG's cache-aware routing over an approximate prefix tree
//     per model of the prompts sent to each worker, keyed by token ids with
//     each media item's pad tokens keyed by its content hash (package
//     internal/routing has the rule and its thresholds,
//     Options.CacheAware); the chosen worker's tree learns the prompt, and a
//     removed worker's entries are dropped.
//
// A prompt-aware policy without its input (no Key, no IDs) chooses as
// least_loaded does. Candidates lists the workers Pick chooses from, for a
// caller that plans for them before it picks.
//
// # Lease rule
//
// The shm.Batch given to Generate holds the request's shared-memory
// segments. Any failure before the worker's first response — a request the
// protocol cannot encode, a connection failure, an oversized message, an
// error status from the worker (which then has read, or refused, the
// tensors), the caller's context ending — releases the batch: every segment
// is unlinked by the gateway. The first response proves the worker took the
// request and read its tensors: the batch is committed and the segments are
// the worker's (it unlinks them; the pool's janitor removes what a crashed
// worker leaves). A request is sent again to another worker only before the
// first response, only after UNAVAILABLE (the connection failed), and only
// to a healthy worker of the same model whose protocol and route can carry
// the request exactly as it was placed (its protocol accepts the encoder
// dtypes and layout, encodes it within the worker's message limit; shared
// memory needs a worker sharing the namespace, inline tensors must fit its
// limits); otherwise the error is returned.
//
// A worker that reports keep-after-read (it leaves segments in place and is
// done with their bytes once it answers) and shares the namespace gets
// Route.Reuse: its segments are not unlinked on commit or release but go
// back to the pool's free list and are refilled, under fresh names, for
// later requests (see the shm package). Otherwise the behaviour above holds,
// as real workers expect.
//
// When the caller's context ends while a stream is open (client disconnect,
// deadline), or the caller closes a stream early, an Abort for the request
// id is sent to the worker in the background, bounded by AbortTimeout, and
// the stream's gRPC call is cancelled.
//
// # Events
//
// A Stream yields protocol.Events decoded by the worker's protocol: per
// choice the new token ids (never a token twice, whatever the protocol's
// final message repeats), log-probabilities, and on the choice's last event
// its finish reason, matched stop and token counts. The stream is finished
// once every choice of the request has had its last event.
//
// # Errors
//
// Worker failures are *WorkerError values carrying the gRPC code and
// message; they unwrap to ErrWorkerRejected (INVALID_ARGUMENT), ErrTimeout
// (DEADLINE_EXCEEDED), ErrOverloaded (RESOURCE_EXHAUSTED) or ErrWorker
// (anything else). A parameter the worker's protocol cannot express is
// ErrUnsupportedParam. The server maps them to HTTP statuses.
//
// # Concurrency
//
// Engine and Worker are safe for concurrent use. The worker list is
// replaced, never changed in place, by Add and Remove; worker info, route
// and capabilities are immutable snapshots swapped under a lock; in-flight
// counts are atomic. All background goroutines (health loops, abort calls)
// belong to the context given to Start and end with Close, which waits for
// them. A Stream's Recv must be called from one goroutine; Close may be
// called from any.
package engine
