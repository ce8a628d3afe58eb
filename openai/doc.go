// Package openai holds the OpenAI API's wire types as mmgate speaks them,
// each defined once: the chat and completions requests (with the
// extensions vLLM accepts), the response objects and stream chunks, usage,
// models and the error body; vLLM's render API (the render fields of a
// request, GenerateRequest with its SamplingParams and MultiModalFeatures,
// /tokenize and /detokenize); and the two values a backend hands the HTTP
// front, Event (a piece of one choice's output) and Generation (the events
// of one request).
//
// ParseChat and ParseCompletion read and check a request body completely:
// every field is validated here, once, and a parsed request is valid on
// its own (what depends on the model, such as max_tokens against the
// context length, is checked by the gateway). Errors are *RequestError
// values naming the field at fault; they unwrap to ErrBadRequest. Tools,
// tool_choice, documents and chat_template_kwargs are kept as the raw JSON
// the client sent, so templates see their key order. Unknown fields are
// ignored, as OpenAI-compatible servers do.
//
// Memory: ParseChat lifts large media strings (data: URLs) out of the JSON
// without copying them, so the parsed request shares the body's memory and
// the body must outlive every use of it. mmgate's HTTP server reads bodies
// into pooled buffers and states when it gives them back (the lifetime
// rule in package internal/server's documentation).
//
// The package imports nothing but the standard library. Parsing is a pure
// function of the body and safe for concurrent use.
package openai
