package sglang

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/smgwire"
	commonpb "github.com/mmgate/mmgate/proto/common"
	sglangpb "github.com/mmgate/mmgate/proto/sglang"
)

// client is the protocol's calls to one worker.
type client struct {
	c sglangpb.SglangSchedulerClient
}

// Info reads GetModelInfo (UNIMPLEMENTED: protocol.ErrNotThisProtocol) and
// GetServerInfo (optional); neither runs a generation.
func (c *client) Info(ctx context.Context) (*protocol.Info, error) {
	mi, err := c.c.GetModelInfo(ctx, &sglangpb.GetModelInfoRequest{})
	if protocol.IsUnimplemented(err) {
		return nil, fmt.Errorf("sglang: get_model_info: %w: %w", protocol.ErrNotThisProtocol, err)
	}
	if err != nil {
		return nil, fmt.Errorf("get_model_info: %w", err)
	}
	si, err := c.c.GetServerInfo(ctx, &sglangpb.GetServerInfoRequest{})
	if err != nil && !protocol.IsUnimplemented(err) {
		return nil, fmt.Errorf("get_server_info: %w", err)
	}
	return InfoOf(mi, si), nil
}

// Health reads GetServerInfo: the worker answers and is not paused (see
// the package documentation).
func (c *client) Health(ctx context.Context) error {
	si, err := c.c.GetServerInfo(ctx, &sglangpb.GetServerInfoRequest{})
	if err != nil {
		return fmt.Errorf("get_server_info: %w", err)
	}
	if si.GetIsPaused() {
		return fmt.Errorf("get_server_info: the scheduler is paused")
	}
	return nil
}

// Loads sums running and waiting requests (the aggregate when it has them,
// else the per-rank loads).
func (c *client) Loads(ctx context.Context) (int64, error) {
	lr, err := c.c.GetLoads(ctx, &sglangpb.GetLoadsRequest{})
	if protocol.IsUnimplemented(err) {
		return 0, fmt.Errorf("get_loads: %w: %w", protocol.ErrUnimplemented, err)
	}
	if err != nil {
		return 0, fmt.Errorf("get_loads: %w", err)
	}
	if a := lr.GetAggregate(); a != nil && (a.GetTotalRunningReqs() != 0 || a.GetTotalWaitingReqs() != 0) {
		return int64(a.GetTotalRunningReqs()) + int64(a.GetTotalWaitingReqs()), nil
	}
	return smgwire.SumLoads(lr.GetLoads()), nil
}

// Generate sends a GenerateRequest made by Encode.
func (c *client) Generate(ctx context.Context, msg proto.Message) (protocol.EventStream, error) {
	req, ok := msg.(*sglangpb.GenerateRequest)
	if !ok {
		return nil, fmt.Errorf("sglang: generate: a %T is not a GenerateRequest: %w", msg, protocol.ErrBadRequest)
	}
	cs, err := c.c.Generate(ctx, req)
	if err != nil {
		return nil, err
	}
	return &events{cs: cs, d: NewDecoder(req.GetStream())}, nil
}

// events decodes a Generate stream.
type events struct {
	cs grpc.ServerStreamingClient[sglangpb.GenerateResponse]
	d  *Decoder
}

func (s *events) Recv() (protocol.Event, error) {
	r, err := s.cs.Recv()
	if err != nil {
		return protocol.Event{}, err
	}
	return s.d.Decode(r)
}

// Abort aborts the request id (the servicer stops its n > 1 children).
func (c *client) Abort(ctx context.Context, requestID, reason string) error {
	_, err := c.c.Abort(ctx, &sglangpb.AbortRequest{RequestId: requestID, Reason: reason})
	return err
}

// Tokenizer streams GetTokenizer.
func (c *client) Tokenizer(ctx context.Context) (protocol.ChunkStream, error) {
	st, err := c.c.GetTokenizer(ctx, &commonpb.GetTokenizerRequest{})
	if err != nil {
		return nil, err
	}
	return smgwire.Chunks{Stream: st}, nil
}
