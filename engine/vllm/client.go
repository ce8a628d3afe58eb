package vllm

import (
	"context"

	"google.golang.org/protobuf/proto"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/smgwire"
	vllmpb "github.com/mmgate/mmgate/proto/vllm"
)

// client is the protocol's calls to one worker.
type client struct {
	c vllmpb.VllmEngineClient
}

// Info reads GetModelInfo (UNIMPLEMENTED: protocol.ErrNotThisProtocol) and
// GetServerInfo (optional).
func (c *client) Info(ctx context.Context) (*protocol.Info, error) {
	return smgwire.Info(ctx, Name,
		func(ctx context.Context) (*vllmpb.GetModelInfoResponse, error) {
			return c.c.GetModelInfo(ctx, &vllmpb.GetModelInfoRequest{})
		},
		func(ctx context.Context) (*vllmpb.GetServerInfoResponse, error) {
			return c.c.GetServerInfo(ctx, &vllmpb.GetServerInfoRequest{})
		}, InfoOf)
}

// Health runs HealthCheck (the servicer answers from the engine's state).
func (c *client) Health(ctx context.Context) error {
	return smgwire.Health(c.c.HealthCheck(ctx, &vllmpb.HealthCheckRequest{}))
}

// Loads sums the running and waiting requests of every rank.
func (c *client) Loads(ctx context.Context) (int64, error) {
	lr, err := c.c.GetLoads(ctx, &vllmpb.GetLoadsRequest{})
	return smgwire.Loads(lr, err, func(lr *vllmpb.GetLoadsResponse) int64 { return smgwire.SumLoads(lr.GetLoads()) })
}

// Generate sends a GenerateRequest made by Encode.
func (c *client) Generate(ctx context.Context, msg proto.Message) (protocol.EventStream, error) {
	return smgwire.Generate(ctx, Name, msg, c.c.Generate, func(req *vllmpb.GenerateRequest) func(*vllmpb.GenerateResponse) (protocol.Event, error) {
		return NewDecoder(req.GetStream()).Decode
	})
}

// Abort aborts the request id (the engine stops its n > 1 sequences with
// it); vLLM takes no reason.
func (c *client) Abort(ctx context.Context, requestID, _ string) error {
	_, err := c.c.Abort(ctx, &vllmpb.AbortRequest{RequestIds: []string{requestID}})
	return err
}

// Tokenizer streams GetTokenizer.
func (c *client) Tokenizer(ctx context.Context) (protocol.ChunkStream, error) {
	return smgwire.Tokenizer(ctx, c.c.GetTokenizer)
}
