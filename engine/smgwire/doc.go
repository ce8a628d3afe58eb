// Package smgwire holds what the engine protocols defined in
// lightseekorg/smg (TokenSpeed, vLLM, SGLang) share: the smg.grpc.common
// messages (tokenizer chunks, shared-memory handles, modalities); the
// messages each protocol repeats with its own Go types — model info,
// health, loads, stream chunks and completes, log-probabilities, tensors —
// read through their common getters (generics), or by field name where a
// oneof's type is not exported (protoreflect); the client calls built on
// them (Info, Health, Loads, Generate, Tokenizer); and the joining of
// several media items' tensors into one tensor per name for the protocols
// that carry items that way (protocol.LayoutFlat).
//
// # Joining (Join, JoinSide)
//
// The pipeline places a flat request's encoder inputs back to back in one
// buffer: inline, consecutive slices of one byte slice; in shared memory,
// consecutive ranges of one segment. Join turns them into one payload
// without a copy (inline slices that are not adjacent in memory are
// copied into a new buffer, so any caller gets a correct message). Inputs
// in several segments, or mixed inline and shared memory, cannot be
// joined (protocol.ErrBadRequest): a worker that unlinks each file after
// one read needs one tensor per file.
//
// Everything here is stateless and safe for concurrent use.
package smgwire
