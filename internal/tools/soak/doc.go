// Package soak drives a real mmgate deployment — one gateway process and
// several reference-worker processes, all started from an mmgate binary —
// with mixed text and image chat requests while injecting faults, and
// checks what must survive them:
//
//   - every request is either answered correctly or fails with a clean
//     error: image answers are checked against the fingerprints `mmgate
//     preprocess --hash` computes for the same files, text answers against
//     the first answer to the same prompt, so another request's pixels or
//     tokens can never pass;
//   - after the run, no shared-memory segment is left once the janitor has
//     swept, the gateway's goroutine count is back near its baseline and its
//     resident memory near its baseline (both read from /metrics).
//
// Faults (soak mode): clients cancel streams mid-way, workers are killed
// with SIGKILL and restarted, workers reject every Nth request
// (`mmgate worker --reject-every`), and the shared-memory tmpfs is filled
// to the brim for a while. The tmpfs is a small one mounted in a private
// mount namespace (`unshare -m`, needs CAP_SYS_ADMIN); the host's /dev/shm
// is never filled. Without the privilege the fill fault is skipped and the
// report says so.
//
// Load mode runs a fixed concurrency with no faults and reports latency
// percentiles, 429s (which must come at once, not after queueing) and peak
// memory against the configured budgets.
//
// Run is not safe for concurrent use with the same WorkDir.
package soak
