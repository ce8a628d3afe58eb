package tokenspeed

import (
	"context"

	"google.golang.org/protobuf/proto"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/smgwire"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
)

// client is the protocol's calls to one worker.
type client struct {
	c schedulerpb.TokenSpeedSchedulerClient
}

// Info reads GetModelInfo (UNIMPLEMENTED: protocol.ErrNotThisProtocol) and
// GetServerInfo (optional).
func (c *client) Info(ctx context.Context) (*protocol.Info, error) {
	return smgwire.Info(ctx, Name,
		func(ctx context.Context) (*schedulerpb.GetModelInfoResponse, error) {
			return c.c.GetModelInfo(ctx, &schedulerpb.GetModelInfoRequest{})
		},
		func(ctx context.Context) (*schedulerpb.GetServerInfoResponse, error) {
			return c.c.GetServerInfo(ctx, &schedulerpb.GetServerInfoRequest{})
		}, InfoOf)
}

// Health runs HealthCheck.
func (c *client) Health(ctx context.Context) error {
	return smgwire.Health(c.c.HealthCheck(ctx, &schedulerpb.HealthCheckRequest{}))
}

// Loads sums running and waiting requests (the aggregate when it has them,
// else the per-rank loads).
func (c *client) Loads(ctx context.Context) (int64, error) {
	lr, err := c.c.GetLoads(ctx, &schedulerpb.GetLoadsRequest{})
	return smgwire.Loads(lr, err, func(lr *schedulerpb.GetLoadsResponse) int64 {
		return smgwire.AggregateOr(lr.GetAggregate(), lr.GetLoads())
	})
}

// Generate sends a GenerateRequest made by Encode.
func (c *client) Generate(ctx context.Context, msg proto.Message) (protocol.EventStream, error) {
	return smgwire.Generate(ctx, Name, msg, c.c.Generate, func(req *schedulerpb.GenerateRequest) func(*schedulerpb.GenerateResponse) (protocol.Event, error) {
		return NewDecoder(req.GetStream()).Decode
	})
}

// Abort runs Abort for the request id (the worker also stops its n > 1
// children).
func (c *client) Abort(ctx context.Context, requestID, reason string) error {
	_, err := c.c.Abort(ctx, &schedulerpb.AbortRequest{RequestId: requestID, Reason: reason})
	return err
}

// Tokenizer streams GetTokenizer.
func (c *client) Tokenizer(ctx context.Context) (protocol.ChunkStream, error) {
	return smgwire.Tokenizer(ctx, c.c.GetTokenizer)
}
