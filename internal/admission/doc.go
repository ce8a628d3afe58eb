// Package admission bounds the memory the gateway's tensors take across
// requests. A request is admitted by its planned bytes — the encoder inputs
// its media items become, in the wire dtype and layout of its worker, plus
// the scratch their processing needs — computed from the items' headers
// before any pixel is decoded; it holds them from admission until its
// tensors are handed to the worker (segments committed, or the inline
// message sent and answered), not until the end of its generation.
//
// # The controller
//
// A Controller has a budget (Options.Budget), the capacity of a weighted
// FIFO (limits.Queue, the queue of the gateway's processing slots). A
// request fits when the bytes of the requests already admitted, plus what
// the holders keep, plus its own are within the budget. Requests are
// admitted in arrival order: one that does not fit waits behind the
// earlier ones (a small request never overtakes a large one that arrived
// first) for at most Options.Timeout, and is then refused with
// ErrQueueTimeout (HTTP 503 with Retry-After). A request planning more than Options.PerRequest (or more
// than the budget, which could never be admitted) is refused at once with
// ErrTooLarge (HTTP 413), naming its planned and allowed bytes. Requests
// that plan no bytes (text only) never reach the controller, so they never
// wait behind media.
//
// # Holders: one memory plan
//
// Memory the gateway keeps beyond a request — the preprocessed-tensor
// cache, the shared-memory segments kept idle for reuse — is counted in the
// same budget through a Holder. A holder's bytes are what it keeps now
// (Set, Add) or may add only when they fit (TryAdd: the cache stores a
// tensor only when there is room); when the request at the head of the
// queue does not fit, the controller asks the holders, in the order they
// were made, to give back what it lacks (their reclaim function: the cache
// evicts its least recently used tensors, the pool unlinks idle segments).
// So the budget bounds in-flight tensors, cached tensors and idle segments
// together.
//
// # Concurrency
//
// A Controller, its Holders and Tickets are safe for concurrent use. A
// holder's Set, Add and TryAdd never call back into the holder (they may be
// called with the holder's own lock held); the reclaim function is called
// without any of the controller's or the queue's locks held, from the
// goroutine of the waiting request.
package admission
