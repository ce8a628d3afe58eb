// Package procs is the one harness that runs processes for mmgate's tests
// and tools: the system tests (internal/systest/…), the cmd/mmgate tests,
// the soak and load tool (internal/tools/soak) and the benchmarks' helper
// processes (the transport benchmark's worker, the gateway benchmark's text
// probe). It builds the mmgate binary once per test binary (Build, Main),
// starts processes (Spawn, StartCmd, and for tests Start, Gateway, Worker)
// with the pipes asked for, waits for readiness (Poll, WaitFor, Ready),
// hands out free loopback addresses (LoopbackAddr, FreeAddr) and private
// shared-memory directories (NewShmDir, ShmDir), lists what is left in one
// (Segments), and stops processes (Proc.Stop, Proc.Kill), keeping the tail
// of each one's stderr (Log).
//
// The helpers that take a T stop the test on failure and stop their
// processes when the test ends (SIGTERM, then SIGKILL after 10 s), logging
// their stderr when the test failed; the others return errors, for
// programs. The package does not import "testing", so that the mmgate
// binary (which carries the benchmarks and the soak tool) does not link it.
//
// A Proc and a Log are safe for concurrent use; everything else is a plain
// function of its arguments.
package procs
