// Package pipeline runs one chat request from parsed JSON to a stream of
// output events: it plans the media and messages (prompt), picks a worker
// (engine), fetches and preprocesses every media item in parallel under the
// process-wide CPU budget (media/fetch, imageprep) straight into its
// destination (a shared-memory segment or an inline buffer, shm), renders and
// tokenizes the prompt with its placeholders expanded (chattemplate,
// tokenizer, prompt), sends Generate to the worker and decodes its tokens
// incrementally, enforcing stop strings on the decoded text.
//
// Stages do not call each other: this package calls them in order. On any
// failure before the worker took the request, the request's shm segments are
// released (engine and shm enforce the lease rule); a client that goes away
// aborts the request at the worker.
//
// A Pipeline is safe for concurrent use. The preprocessed-tensor cache is
// shared by every request.
package pipeline
