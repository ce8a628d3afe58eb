// Package protocol is the seam between the engine and its wire protocols:
// the protocol-neutral request (Request: token ids, sampling parameters,
// media items with their tensors placed inline or in shared memory) and
// event stream (Event: per choice, new token ids, log-probabilities, finish
// reason, matched stop, token counts), what a worker reports about itself
// (Info) and can take (Capabilities), and the interfaces each protocol
// package implements (Protocol, Client, EventStream).
//
// It is a leaf: protocol packages (engine/tokenspeed, later vLLM and
// SGLang) import it and not the engine; the engine (worker registry,
// health, selection, retries, aborts, shared-memory leases) imports it and
// no protocol; the pipeline builds Requests and reads Events without knowing
// which protocol a worker speaks.
//
// # Contracts
//
// A protocol encodes every field it can express and refuses the others with
// ErrUnsupportedParam (never a silent drop); it decodes its own stream rules
// so that no token reaches an Event twice (TokenSpeed's final message
// repeats streamed tokens; vLLM's and SGLang's carry the last step). Values
// of this package are plain data: a Request and the bytes it references
// must not change while a Generate call that sent it runs; an Info is a
// snapshot, never modified.
package protocol
