// Package benchgw is the load generator behind `mmgate bench gateway`: it
// drives a running gateway's OpenAI chat endpoint with streaming image
// requests at a fixed concurrency while a text-only probe stream runs beside
// them, and reports throughput, latency and time-to-first-token percentiles,
// errors by status, the tensor transport mix and the per-stage mean times
// taken from the gateway's /metrics.
//
// The load:
//   - N image requests (Options.Requests) issued by C workers
//     (Options.Concurrency). Request i carries one image, file i mod F of the
//     image directory (files in name order), as a base64 data: URL followed by
//     a short text part, so the first F requests all use different files.
//     Every request body is built before the timed run starts; the client only
//     copies a prepared byte slice into the connection.
//   - one text-only streaming request at a time, every Options.ProbeInterval,
//     for as long as image requests are running (the probe), over a
//     keep-alive connection of its own as a separate text-only client would
//     have; with Options.ProbeProcess (what `mmgate bench gateway` does) from
//     a process of its own too, so that it never waits on the load
//     generator's goroutines. Its latencies tell how much a text request
//     waits behind image preprocessing.
//
// Before the clock starts, a warm-up (unless Options.NoWarmUp) sends three
// text requests over the probe's connection and one image request with a
// small generated JPEG (none of the measured files): a cold gateway's first
// requests pay one-time costs that are not what the run measures. The
// /metrics scrape that the transport mix and stage means start from comes
// after it.
//
// Time to first token is measured by the client: from the moment the request
// is sent to the first SSE chunk whose delta carries non-empty content. The
// latency of a request runs until "data: [DONE]" (or the end of the stream).
// Percentiles are nearest-rank over all successful requests of a kind.
//
// Bounds: no request is started after Options.Duration; each request has
// Options.RequestTimeout; the caller's context cancels everything. Only
// loopback URLs (127.0.0.0/8, ::1, localhost, unix sockets) are accepted
// unless Options.AllowRemote is set: this is a load generator.
//
// The transport mix is reported twice: from the replies of the reference
// worker (lines "image 1: grid 1x30x40, bfloat16 via shm, ...") and from the
// change of mmgate_mm_tensors_total between a /metrics scrape before and one
// after the run. Stage means come from the change of
// mmgate_stage_duration_seconds sum and count; they include the probe's
// requests for the stages text requests go through (tokenize, transport,
// generate).
//
// A Runner is not safe for concurrent use: call Run once at a time.
package benchgw
