// Package transportbench measures how long a tensor takes to reach a worker
// (`mmgate bench transport`) and holds the minimal worker side used by the
// measurements and by the shm package's tests: Server, a TokenSpeedScheduler
// that reads every multimodal tensor (through a TensorReader, e.g.
// tensordata.Reader over an shm.Reader) and answers with a deterministic digest of each, plus
// GetServerInfo (shm_namespace_id) and HealthCheck.
//
// The measured time runs from the producer starting to write the tensor into
// its destination to the worker's answer, sent once it has read every byte:
//
//   - inline-tcp / inline-unix: fill a fresh Go buffer, send it in
//     TensorData.inline of a GenerateRequest over TCP or a unix socket; the
//     worker unmarshals it and reads it;
//   - shm: create, reserve and fill a fresh segment (shm.Pool), send its
//     handle; the worker maps it, unlinks it and reads it;
//   - memcpy (the floor): fill a fresh buffer, copy it into another fresh
//     buffer, read that;
//   - shm-reuse (only on request): refill one pre-faulted segment per size,
//     read by a worker that does not unlink it.
//
// Between runs the benchmark returns freed memory to the OS, so every
// "fresh" buffer is made of new pages. Server is safe for concurrent use.
package transportbench
