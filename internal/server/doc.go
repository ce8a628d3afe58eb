// Package server is mmgate's HTTP front: the OpenAI-compatible routes
// (/v1/chat/completions, streaming and not; /v1/models), /health,
// /health/ready and /metrics. It parses and bounds requests (body limit,
// in-flight limit answered at once with 429), hands them to a Backend (the
// per-request pipeline), and writes OpenAI JSON or server-sent events. Errors
// are mapped to status codes in one place, package apierr.
//
// A Server is safe for concurrent use; every request runs on its own
// goroutine and is cancelled when its client goes away.
package server
