package protocol

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// Protocol is one engine wire protocol (TokenSpeed, later vLLM and SGLang):
// everything protocol-specific the engine needs. Implementations live in
// their own packages (engine/tokenspeed) and must be safe for concurrent
// use; the engine gets the set to use from engine.Options.Protocols.
type Protocol interface {
	// Name is the protocol's runtime label ("tokenspeed"): the value of
	// engine.WorkerConfig.Runtime that forces it and the runtime label of
	// the transport metrics.
	Name() string
	// Capabilities are what the protocol can carry, whatever the worker.
	// Modalities and KeepAfterRead come from each worker's Info instead.
	Capabilities() Capabilities
	// Client binds the protocol to a worker's connection. It does no I/O.
	Client(cc grpc.ClientConnInterface) Client
	// Encode turns a request into the protocol's Generate message. Errors
	// wrap ErrBadRequest (a request the caller built wrong) or
	// ErrUnsupportedParam (a parameter the protocol cannot express).
	Encode(req *Request) (proto.Message, error)
}

// Client is a protocol's calls to one worker. Calls return gRPC status
// errors as the worker sent them; the engine maps them
// (engine.WorkerError).
type Client interface {
	// Info reads the worker's model and server info. An error wrapping
	// ErrNotThisProtocol means the worker does not serve this protocol (its
	// info call is UNIMPLEMENTED): the engine then tries the next protocol.
	Info(ctx context.Context) (*Info, error)
	// Health reports whether the worker can take requests (nil) or why not.
	Health(ctx context.Context) error
	// Loads returns the requests running and waiting on the worker, from
	// every client. An error wrapping ErrUnimplemented means the worker has
	// no loads call (it is then balanced on local counts only).
	Loads(ctx context.Context) (int64, error)
	// Generate sends a message made by the protocol's Encode and returns
	// the stream of neutral events; the call ends with ctx.
	Generate(ctx context.Context, msg proto.Message) (EventStream, error)
	// Abort asks the worker to stop a request (and its n > 1 children).
	Abort(ctx context.Context, requestID, reason string) error
	// Tokenizer streams the worker's tokenizer bundle (a zip).
	Tokenizer(ctx context.Context) (ChunkStream, error)
}

// EventStream is a protocol's Generate call in progress, decoded by the
// protocol's own stream rules. Recv returns io.EOF after the last message,
// and gRPC status errors as received. It is used from one goroutine.
type EventStream interface {
	Recv() (Event, error)
}

// Chunk is one piece of a tokenizer bundle; SHA256 (hex) is set on the
// final piece only.
type Chunk struct {
	Data   []byte
	SHA256 string
}

// ChunkStream is a tokenizer bundle download; Recv returns io.EOF after the
// last chunk.
type ChunkStream interface {
	Recv() (Chunk, error)
}

// Layout says how a protocol carries the tensors of several media items.
type Layout uint8

const (
	// LayoutPerItem: every item travels with its own tensors (TokenSpeed).
	LayoutPerItem Layout = iota
	// LayoutFlat: one tensor per key for all items, concatenated along the
	// first dimension, with a sizes tensor (vLLM's flat keys). The items'
	// inputs are then placed back to back in one buffer, so that each
	// item's payload is a slice of it and the encoder joins them without a
	// copy.
	LayoutFlat
)

// Capabilities are what a worker can take: the protocol's part
// (Protocol.Capabilities) completed with what the worker reported
// (engine.Worker.Capabilities). The pipeline places tensors by them and
// the engine's Pick refuses workers that cannot carry a request's media.
type Capabilities struct {
	// Modalities the model takes (from the worker's info).
	Modalities []vision.Modality
	// DTypes are the encoder input dtypes the protocol accepts.
	DTypes []tensor.DType
	// Shm: tensors may travel through shared memory.
	Shm bool
	// KeepAfterRead: the worker leaves segments in place after reading
	// them, so the gateway may refill them (shm.Route.Reuse).
	KeepAfterRead bool
	// Layout of several items' tensors.
	Layout Layout
	// MixModalities: one request may carry items of several modalities.
	MixModalities bool
	// RawMedia: the protocol wants each item's encoded bytes
	// (MediaItem.Raw) beside its tensors.
	RawMedia bool
}

// AcceptsDType reports whether dt is one of the accepted encoder dtypes.
func (c Capabilities) AcceptsDType(dt tensor.DType) bool {
	for _, d := range c.DTypes {
		if d == dt {
			return true
		}
	}
	return false
}

// Takes reports whether a request carrying the modalities need (each once)
// can go to a worker with these capabilities.
func (c Capabilities) Takes(need []vision.Modality) bool {
	if len(need) > 1 && !c.MixModalities {
		return false
	}
	for _, m := range need {
		if !HasModality(c.Modalities, m) {
			return false
		}
	}
	return true
}

// HasModality reports whether ms holds m.
func HasModality(ms []vision.Modality, m vision.Modality) bool {
	for _, h := range ms {
		if h == m {
			return true
		}
	}
	return false
}
