// Package pipeline runs one request from the parsed OpenAI request to a
// stream of output events: it plans the media and messages (prompt), picks
// a worker (engine), fetches and preprocesses every media item in parallel
// under the process-wide CPU budget (media/fetch, imageprep) straight into
// its destination (a shared-memory segment or an inline buffer, shm),
// renders and tokenizes the prompt with its placeholders expanded
// (chattemplate, tokenizer, prompt), sends Generate to the worker and
// decodes its tokens incrementally, enforcing stop strings on the decoded
// text.
//
// The front half — model → assets → request checks → prompt → media plan →
// render → token ids, pad runs, structural ranges, hashes → sampling — is
// one function (front.go) that the gateway's chat and completions and the
// Renderer (mmgate render) all call. What differs between them is a
// parameter: the media stage (the gateway fetches, decodes and
// preprocesses each item for the worker it picked, placed as that worker's
// protocol wants: one buffer per item, or all items back to back in one;
// render fetches and reads headers to plan) and the max_tokens rule
// (Budget). vLLM's render API (RenderChat, RenderCompletions, Tokenize,
// Detokenize, on a Pipeline and on a Renderer) answers from it: token ids
// as the gateway sends them, media spans as vLLM gives them, sampling
// parameters as vLLM resolves them.
//
// Stages do not call each other: this package calls them in order. On any
// failure before the worker took the request, the request's shm segments are
// released (engine and shm enforce the lease rule); a client that goes away
// aborts the request at the worker. Media strings of a request may share the
// HTTP body's memory (package openai lifts them without a copy): nothing this
// package keeps beyond a request refers to them (the lifetime rule in
// package internal/server's documentation). The encoded media bytes a
// protocol wants beside the tensors (SGLang) are held only until
// Engine.Generate has returned.
//
// A Pipeline and a Renderer are safe for concurrent use. The
// preprocessed-tensor cache is shared by every request.
package pipeline
