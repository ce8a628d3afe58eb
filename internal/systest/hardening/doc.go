// Package hardening holds mmgate's hostile-input and fault tests. It has no
// library code: its tests build the mmgate binary once, run a real gateway
// (and reference or deliberately broken workers) and check that every bad
// request, bad medium, forbidden URL and misbehaving worker gets the status
// and error code the README's Errors table documents, while the gateway
// stays healthy.
//
// The request corpus lives in testdata/corpus: one request body per file and
// testdata/corpus/cases.tsv naming each file with its expected status and
// error code. The media-carrying bodies are produced by
// `go test ./internal/systest/hardening -run TestGenerateCorpus -update`.
//
// Tests never connect to a non-loopback address: URL cases that involve
// private or metadata addresses run against media/fetch with an injected
// resolver and dialer that fail the test on any attempt to leave loopback.
package hardening
