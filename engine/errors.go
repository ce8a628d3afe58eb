package engine

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"

	"github.com/mmgate/mmgate/engine/protocol"
)

// The errors of this package. Operations wrap them as "engine: op: %w"; test
// with errors.Is. The HTTP status each one maps to is noted; the mapping
// itself lives in the server.
var (
	// ErrBadOptions: an Options or WorkerConfig field has an invalid value.
	ErrBadOptions = errors.New("bad options")
	// ErrBadURL: a worker URL is not grpc://HOST:PORT, grpcs://HOST:PORT
	// or unix:///path.
	ErrBadURL = errors.New("bad worker url")
	// ErrUnsupported: a worker URL asks for something not implemented
	// (https://).
	ErrUnsupported = errors.New("not supported yet")

	// ErrModelNotFound: no known worker, healthy or not, serves the model
	// (404).
	ErrModelNotFound = errors.New("model not found")
	// ErrNoWorker: workers serve the model but none is healthy right now
	// (503).
	ErrNoWorker = errors.New("no healthy worker")
	// ErrModality: the model does not take a modality the request carries
	// (400).
	ErrModality = errors.New("modality not supported by the model")

	// ErrBadRequest (protocol.ErrBadRequest): the Request cannot be sent
	// as built (no ID, a tensor the protocol cannot describe). A caller
	// bug, not a client error (500).
	ErrBadRequest = protocol.ErrBadRequest
	// ErrUnsupportedParam (protocol.ErrUnsupportedParam): the request asks
	// for something the worker's protocol cannot express; it is refused
	// rather than silently dropped (400).
	ErrUnsupportedParam = protocol.ErrUnsupportedParam
	// ErrTooLarge: the request does not fit the worker's gRPC message limit
	// (413).
	ErrTooLarge = errors.New("request too large for the worker")

	// ErrWorkerRejected: the worker refused the request as invalid
	// (INVALID_ARGUMENT); the WorkerError carries its message (400).
	ErrWorkerRejected = errors.New("worker rejected the request")
	// ErrTimeout: the worker's or the caller's deadline passed (504).
	ErrTimeout = errors.New("worker deadline exceeded")
	// ErrOverloaded: the worker is out of capacity (RESOURCE_EXHAUSTED, 429).
	ErrOverloaded = errors.New("worker overloaded")
	// ErrWorker: any other worker failure, or a broken stream (502).
	ErrWorker = errors.New("worker error")

	// ErrBadBundle: the tokenizer bundle from GetTokenizer is corrupt, unsafe
	// or too large.
	ErrBadBundle = errors.New("bad tokenizer bundle")
	// ErrClosed: the engine is not started or already closed.
	ErrClosed = errors.New("engine closed")
)

// WorkerError is a failure status from a worker. It unwraps to one of
// ErrWorkerRejected, ErrTimeout, ErrOverloaded or ErrWorker (by Code), so
// errors.Is picks the HTTP status and errors.As gives the worker's code and
// message.
type WorkerError struct {
	Op      string     // "generate", "get_tokenizer", ...
	Worker  string     // the worker's URL
	Code    codes.Code // the gRPC status code
	Message string     // the worker's status message
	Kind    error      // ErrWorkerRejected, ErrTimeout, ErrOverloaded or ErrWorker
}

func (e *WorkerError) Error() string {
	return fmt.Sprintf("engine: %s on %s: %v: %s: %s", e.Op, e.Worker, e.Kind, e.Code, e.Message)
}

// Unwrap returns Kind.
func (e *WorkerError) Unwrap() error { return e.Kind }

// kindOf maps a worker's gRPC code to the package error it unwraps to.
func kindOf(c codes.Code) error {
	switch c {
	case codes.InvalidArgument:
		return ErrWorkerRejected
	case codes.DeadlineExceeded:
		return ErrTimeout
	case codes.ResourceExhausted:
		return ErrOverloaded
	}
	return ErrWorker
}

// outcome is the mmgate_worker_requests_total label of an error kind.
func outcomeOf(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrWorkerRejected):
		return "rejected"
	case errors.Is(err, ErrTimeout):
		return "timeout"
	case errors.Is(err, ErrOverloaded):
		return "overloaded"
	case errors.Is(err, ErrTooLarge):
		return "too_large"
	}
	return "error"
}
