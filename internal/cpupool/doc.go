// Package cpupool runs CPU-heavy work — image decoding, resizing,
// normalize+patchify, parsing of large request bodies, an embedded worker's
// reading of tensors — on a fixed set of OS threads that run at a lower
// scheduling priority (on Linux the SCHED_IDLE policy, or a higher nice
// value). Latency-sensitive work (text requests, token streaming, network
// I/O) keeps running on the Go runtime's ordinary threads, and the kernel
// preempts the heavy threads in its favour. The number of slots bounds how
// much heavy work runs at once, process-wide.
//
// Pool work must not run long assembly calls (copy, hashing) over whole
// tensors: the runtime cannot preempt them, so a stop-the-world — and with
// it every goroutine of the process — waits for the low-priority thread to
// finish one. Copy, Clone and Write split such work.
//
// The gateway raises GOMAXPROCS by the number of slots, so that the runtime
// always has processors for ordinary goroutines while every slot is busy.
//
// A Pool is safe for concurrent use.
package cpupool
