// Package server is mmgate's HTTP front: the OpenAI-compatible routes
// (/v1/chat/completions and /v1/completions, streaming and not;
// /v1/models), /health, /health/ready and /metrics. It checks API keys
// (Options.APIKeys: `Authorization: Bearer KEY` on /v1/ routes, and on
// /metrics with MetricsAuth; compared as SHA-256 digests in constant time),
// parses and bounds requests (body limit, in-flight limit answered at once
// with 429), hands them to a Backend (the per-request pipeline; a Backend
// that also implements Completer serves /v1/completions), and writes OpenAI
// JSON or server-sent events. Errors are mapped to status codes in one
// place, package apierr.
//
// Every request has an id (a sane X-Request-Id, else a random one) returned
// in X-Request-Id, and a request-scoped logger carrying it as request_id in
// its context (Logger), for the backend's log lines.
//
// A Server is safe for concurrent use; every request runs on its own
// goroutine and is cancelled when its client goes away. Drain marks a
// shutdown: requests cut from then on get a 503, or an error event and
// [DONE] once streaming, instead of silence.
package server
