package sglang

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/smgwire"
	sglangpb "github.com/mmgate/mmgate/proto/sglang"
)

// client is the protocol's calls to one worker.
type client struct {
	c sglangpb.SglangSchedulerClient
}

// Info reads GetModelInfo (UNIMPLEMENTED: protocol.ErrNotThisProtocol) and
// GetServerInfo (optional); neither runs a generation.
func (c *client) Info(ctx context.Context) (*protocol.Info, error) {
	return smgwire.Info(ctx, Name,
		func(ctx context.Context) (*sglangpb.GetModelInfoResponse, error) {
			return c.c.GetModelInfo(ctx, &sglangpb.GetModelInfoRequest{})
		},
		func(ctx context.Context) (*sglangpb.GetServerInfoResponse, error) {
			return c.c.GetServerInfo(ctx, &sglangpb.GetServerInfoRequest{})
		}, InfoOf)
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
	return smgwire.Loads(lr, err, func(lr *sglangpb.GetLoadsResponse) int64 {
		return smgwire.AggregateOr(lr.GetAggregate(), lr.GetLoads())
	})
}

// Generate sends a GenerateRequest made by Encode.
func (c *client) Generate(ctx context.Context, msg proto.Message) (protocol.EventStream, error) {
	return smgwire.Generate(ctx, Name, msg, c.c.Generate, func(req *sglangpb.GenerateRequest) func(*sglangpb.GenerateResponse) (protocol.Event, error) {
		return NewDecoder(req.GetStream()).Decode
	})
}

// Abort aborts the request id (the servicer stops its n > 1 children).
func (c *client) Abort(ctx context.Context, requestID, reason string) error {
	_, err := c.c.Abort(ctx, &sglangpb.AbortRequest{RequestId: requestID, Reason: reason})
	return err
}

// Tokenizer streams GetTokenizer.
func (c *client) Tokenizer(ctx context.Context) (protocol.ChunkStream, error) {
	return smgwire.Tokenizer(ctx, c.c.GetTokenizer)
}
