package protocol

import (
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The errors protocols return beside the workers' gRPC statuses (which the
// engine maps itself). Test with errors.Is.
var (
	// ErrBadRequest: the Request cannot be sent as built (no ID, a tensor
	// or range the protocol cannot describe). A caller bug, not a client
	// error (HTTP 500).
	ErrBadRequest = errors.New("bad generate request")
	// ErrUnsupportedParam: the request asks for something the protocol
	// cannot express (a sampling parameter or constraint); it is refused
	// rather than silently dropped (HTTP 400).
	ErrUnsupportedParam = errors.New("parameter not supported by the worker's protocol")
	// ErrNotThisProtocol: Client.Info found that the worker does not serve
	// the protocol (its info call is UNIMPLEMENTED).
	ErrNotThisProtocol = errors.New("worker does not serve this protocol")
	// ErrUnimplemented: the worker does not implement an optional call
	// (loads).
	ErrUnimplemented = errors.New("call not implemented by the worker")
)

// IsUnimplemented reports whether err is a gRPC UNIMPLEMENTED status: the
// worker has no such method.
func IsUnimplemented(err error) bool { return status.Code(err) == codes.Unimplemented }
