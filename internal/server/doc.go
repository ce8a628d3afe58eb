// Package server is mmgate's HTTP front: the OpenAI-compatible routes
// (/v1/chat/completions and /v1/completions, streaming and not;
// /v1/models), vLLM's render routes for routers
// (/v1/chat/completions/render, /v1/completions/render, /tokenize,
// /detokenize; served when the Backend implements RenderAPI), /health,
// /health/ready and /metrics. It checks API keys
// (Options.APIKeys: `Authorization: Bearer KEY` on /v1/ routes, and on
// /metrics with MetricsAuth; compared as SHA-256 digests in constant time),
// parses and bounds requests (body limit, in-flight limit answered at once
// with 429; the request types are package openai's), hands them to a
// Backend (the per-request pipeline; a Backend that also implements
// Completer serves /v1/completions), and writes OpenAI JSON or server-sent
// events. Errors are mapped to status codes in one place, package apierr.
//
// Every request has an id (a sane X-Request-Id, else a random one) returned
// in X-Request-Id, and a request-scoped logger carrying it as request_id in
// its context (package reqlog), for the backend's log lines.
//
// # Request body lifetime
//
// A request body of declared length (16 KiB to 8 MiB) is read into a
// buffer from a pool and given back for the next request only once its
// request is over: after the handler has returned and the access-log line
// is written. The parsed request shares that memory — openai.ParseChat
// lifts media strings (data: URLs, input_audio data) out of the JSON
// without copying them — so this is the rule every package that handles a
// request follows:
//
//	Nothing made from a request body may outlive its request.
//
// Whatever must last longer (a cache entry, a log field, a worker's
// tensor) is computed from the bytes or copied out of them, never a slice
// or string of the body itself. The media strings are read (fetched,
// base64-decoded) while the backend's Chat runs; the Generation it returns
// holds nothing of them. TestBodyLifetime guards the rule: with every
// released buffer overwritten at once, concurrent chat requests with
// images through the real pipeline and reference worker must give the
// same answers, tensor digests included, as without — with a TokenSpeed
// worker, and with an SGLang worker, which also gets each image's encoded
// bytes (kept by the pipeline only until the worker has the request).
//
// A Server is safe for concurrent use; every request runs on its own
// goroutine and is cancelled when its client goes away. Drain marks a
// shutdown: requests cut from then on get a 503, or an error event and
// [DONE] once streaming, instead of silence.
package server
