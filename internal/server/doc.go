// Package server is mmgate's HTTP front: the OpenAI-compatible routes
// (/v1/chat/completions and /v1/completions, streaming and not;
// /v1/models), vLLM's render routes for routers
// (/v1/chat/completions/render, /v1/completions/render, /tokenize,
// /detokenize; served when the Backend implements RenderAPI), /health,
// /health/ready and /metrics. It checks API keys
// (Options.APIKeys: `Authorization: Bearer KEY` on /v1/ routes, and on
// /metrics with MetricsAuth; compared as SHA-256 digests in constant time),
// parses and bounds requests (the request types are package openai's),
// hands them to a Backend (the per-request pipeline; a Backend that also
// implements Completer serves /v1/completions), and writes OpenAI JSON or
// server-sent events. Errors are mapped to status codes in one place,
// package apierr.
//
// # Slow, hostile and greedy clients
//
// The rules are package limits'; this package applies them (Options lists
// the defaults):
//
//   - connections: at most MaxConnections open (Listener; more wait in the
//     backlog), headers within HeaderTimeout and MaxHeaderBytes
//     (HTTPServer);
//   - per client (an API key, else the client address, X-Forwarded-For
//     trusted from TrustedProxies only): concurrency and a token-bucket
//     rate, 429 rate_limit_exceeded with Retry-After, checked on arrival;
//   - request bodies: received under MaxUploads and MaxUploadBytes (429
//     overloaded) and the pace rule, enforced with read deadlines on the
//     connection (408 request_timeout, connection closed);
//   - processing: a request takes one of MaxInFlight slots only once its
//     body is in: 429 overloaded at once, or with QueueTimeout a wait in
//     arrival order and 503 queue_timeout after it;
//   - responses: every write runs under a write deadline of
//     ClientStallTimeout, so a client that takes nothing of its response
//     for that long has its connection closed, its request context ended
//     (the generation is aborted at the worker) and its slot freed.
//
// Each refusal is counted in mmgate_http_refused_total{reason}; each cut
// (body timeout, client stall) is logged with the client's address.
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
// [DONE] once streaming, instead of silence. Run serves a listener until
// its context ends, then shuts down: no new connections, the requests in
// flight get RunOptions.ShutdownTimeout to finish, the rest are cut (their
// contexts end, so their generations are aborted) and get CutGrace to
// unwind and to finish writing their answers.
package server
