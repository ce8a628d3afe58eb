// Package limits holds the gateway's admission rules against slow, hostile
// and greedy clients, each as a small value the HTTP front applies:
//
//   - Queue: a weighted FIFO semaphore with a bounded wait (processing
//     slots, uploads in progress, bytes held; any budget that admits work
//     in arrival order and refuses it after a timeout);
//   - Clients: per-client concurrency and token-bucket request rate, keyed
//     by API key or client address;
//   - Pace: when a request body that stops arriving, or arrives too slowly,
//     is cut;
//   - ClientAddr: the client address of a request, trusting
//     X-Forwarded-For only from configured proxies;
//   - Listener: a bound on open connections.
//
// Refusals are *Refusal errors that wrap one of the package's sentinels
// (ErrFull, ErrQueueTimeout, ErrRateLimited, ErrBodyTimeout) and carry the
// metric reason and, where waiting helps, a Retry-After duration; package
// apierr maps them to HTTP statuses.
//
// Queue, Clients and Listener are safe for concurrent use; Pace and the
// functions are plain values. The package keeps no state of its own
// between values and starts no goroutine.
package limits
