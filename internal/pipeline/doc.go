// Package pipeline runs one request from the parsed OpenAI request to a
// stream of output events. In order: it plans the media and messages
// (prompt); fetches every media item in parallel (media/fetch), hashes its
// bytes and plans it from its headers — an image's size, a video's probed
// stream — without decoding a pixel (the model family's processor:
// tokens, shape); renders and tokenizes the prompt with its placeholders
// expanded (chattemplate, tokenizer, prompt); admits the request by the
// memory its media will take on the workers it may go to
// (internal/admission: encoder inputs in the worker's wire dtype and
// layout, inline copies, decoding scratch; memplan.go), waiting its turn
// when the budget is spent; picks the worker, once, by the policy with the
// rendered ids, the items' content hashes and the session key (engine);
// decodes and preprocesses each item on the heavy pool, through the tensor
// cache, straight into its destination for that worker (a shared-memory
// segment or an inline buffer, shm: one per item, or all items back to
// back in one for a protocol that joins them); sends Generate, and gives
// the admission back once the worker has the tensors; then decodes the
// worker's tokens incrementally, enforcing stop strings on the decoded
// text. A request without media plans no bytes and never waits for memory.
//
// The front half — model → assets → request checks → prompt → media plan
// from headers → render → token ids, pad runs, structural ranges, hashes →
// (gateway: admission and worker) → sampling — is one function (front.go)
// that the gateway's chat and completions and the Renderer (mmgate render)
// all call. What differs between them is a parameter: the media stage (both
// fetch, hash and plan from headers; the gateway keeps the bytes, admits
// and picks its worker, and after the front half processes the items for
// it; render stops there) and the max_tokens rule (Budget). vLLM's render
// API (RenderChat, RenderCompletions, Tokenize, Detokenize, on a Pipeline
// and on a Renderer) answers from it: token ids as the gateway sends them,
// media spans as vLLM gives them, sampling parameters as vLLM resolves
// them.
//
// Stages do not call each other: this package calls them in order. On any
// failure before the worker took the request, the request's shm segments are
// released (engine and shm enforce the lease rule) and its admission given
// back; a client that goes away
// aborts the request at the worker. Media strings of a request may share the
// HTTP body's memory (package openai lifts them without a copy): nothing this
// package keeps beyond a request refers to them (the lifetime rule in
// package internal/server's documentation). The encoded media bytes are
// held from the probe until the item is processed, or, for a protocol that
// wants them beside the tensors (SGLang), until Engine.Generate has
// returned.
//
// A Pipeline and a Renderer are safe for concurrent use. The
// preprocessed-tensor cache is shared by every request.
package pipeline
