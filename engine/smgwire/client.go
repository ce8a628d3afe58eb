package smgwire

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/mmgate/mmgate/engine/protocol"
	commonpb "github.com/mmgate/mmgate/proto/common"
)

// Info runs a protocol's info calls for protocol.Client.Info: the model
// info (UNIMPLEMENTED: the worker does not serve the protocol, an error
// wrapping protocol.ErrNotThisProtocol), then the optional server info
// (its zero value when UNIMPLEMENTED), mapped by of.
func Info[M, S any](ctx context.Context, name string, model func(context.Context) (M, error), server func(context.Context) (S, error), of func(M, S) *protocol.Info) (*protocol.Info, error) {
	mi, err := model(ctx)
	if protocol.IsUnimplemented(err) {
		return nil, fmt.Errorf("%s: get_model_info: %w: %w", name, protocol.ErrNotThisProtocol, err)
	}
	if err != nil {
		return nil, fmt.Errorf("get_model_info: %w", err)
	}
	si, err := server(ctx)
	if err != nil && !protocol.IsUnimplemented(err) {
		return nil, fmt.Errorf("get_server_info: %w", err)
	}
	return of(mi, si), nil
}

// HealthReply is a protocol's HealthCheckResponse.
type HealthReply interface {
	GetHealthy() bool
	GetMessage() string
}

// Health is protocol.Client.Health from a HealthCheck call's result.
func Health[R HealthReply](r R, err error) error {
	if err != nil {
		return fmt.Errorf("health_check: %w", err)
	}
	if !r.GetHealthy() {
		return fmt.Errorf("health_check: unhealthy: %s", r.GetMessage())
	}
	return nil
}

// Loads is protocol.Client.Loads from a GetLoads call's result, counted by
// count (UNIMPLEMENTED: an error wrapping protocol.ErrUnimplemented).
func Loads[R any](r R, err error, count func(R) int64) (int64, error) {
	if protocol.IsUnimplemented(err) {
		return 0, fmt.Errorf("get_loads: %w: %w", protocol.ErrUnimplemented, err)
	}
	if err != nil {
		return 0, fmt.Errorf("get_loads: %w", err)
	}
	return count(r), nil
}

// Generate is protocol.Client.Generate: it sends msg, which must be the
// protocol's request type Q, with call, and decodes the responses with the
// decoder newDecoder makes for that request.
func Generate[Q proto.Message, R any](ctx context.Context, name string, msg proto.Message,
	call func(context.Context, Q, ...grpc.CallOption) (grpc.ServerStreamingClient[R], error),
	newDecoder func(Q) func(*R) (protocol.Event, error)) (protocol.EventStream, error) {
	req, ok := msg.(Q)
	if !ok {
		return nil, fmt.Errorf("%s: generate: a %T is not its GenerateRequest: %w", name, msg, protocol.ErrBadRequest)
	}
	cs, err := call(ctx, req)
	if err != nil {
		return nil, err
	}
	return events[R]{cs: cs, decode: newDecoder(req)}, nil
}

// events decodes a Generate stream.
type events[R any] struct {
	cs     grpc.ServerStreamingClient[R]
	decode func(*R) (protocol.Event, error)
}

func (s events[R]) Recv() (protocol.Event, error) {
	r, err := s.cs.Recv()
	if err != nil {
		return protocol.Event{}, err
	}
	return s.decode(r)
}

// Tokenizer is protocol.Client.Tokenizer with a protocol's GetTokenizer.
func Tokenizer(ctx context.Context, call func(context.Context, *commonpb.GetTokenizerRequest, ...grpc.CallOption) (grpc.ServerStreamingClient[commonpb.GetTokenizerChunk], error)) (protocol.ChunkStream, error) {
	st, err := call(ctx, &commonpb.GetTokenizerRequest{})
	if err != nil {
		return nil, err
	}
	return Chunks{Stream: st}, nil
}
