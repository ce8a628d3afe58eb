// Package cpupool runs CPU-heavy work — image decoding, resizing,
// normalize+patchify, parsing of large request bodies — on a fixed set of OS
// threads that run at a lower scheduling priority (a higher nice value on
// Linux). Latency-sensitive work (text requests, token streaming, network
// I/O) keeps running on the Go runtime's ordinary threads, and the kernel
// preempts the heavy threads in its favour. The number of slots bounds how
// much heavy work runs at once, process-wide.
//
// The gateway raises GOMAXPROCS by the number of slots, so that the runtime
// always has processors for ordinary goroutines while every slot is busy.
//
// A Pool is safe for concurrent use.
package cpupool
