package vllm

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/smgwire"
	commonpb "github.com/mmgate/mmgate/proto/common"
	vllmpb "github.com/mmgate/mmgate/proto/vllm"
)

// client is the protocol's calls to one worker.
type client struct {
	c vllmpb.VllmEngineClient
}

// Info reads GetModelInfo (UNIMPLEMENTED: protocol.ErrNotThisProtocol) and
// GetServerInfo (optional).
func (c *client) Info(ctx context.Context) (*protocol.Info, error) {
	mi, err := c.c.GetModelInfo(ctx, &vllmpb.GetModelInfoRequest{})
	if protocol.IsUnimplemented(err) {
		return nil, fmt.Errorf("vllm: get_model_info: %w: %w", protocol.ErrNotThisProtocol, err)
	}
	if err != nil {
		return nil, fmt.Errorf("get_model_info: %w", err)
	}
	si, err := c.c.GetServerInfo(ctx, &vllmpb.GetServerInfoRequest{})
	if err != nil && !protocol.IsUnimplemented(err) {
		return nil, fmt.Errorf("get_server_info: %w", err)
	}
	return InfoOf(mi, si), nil
}

// Health runs HealthCheck (the servicer answers from the engine's state).
func (c *client) Health(ctx context.Context) error {
	hc, err := c.c.HealthCheck(ctx, &vllmpb.HealthCheckRequest{})
	if err != nil {
		return fmt.Errorf("health_check: %w", err)
	}
	if !hc.GetHealthy() {
		return fmt.Errorf("health_check: unhealthy: %s", hc.GetMessage())
	}
	return nil
}

// Loads sums the running and waiting requests of every rank.
func (c *client) Loads(ctx context.Context) (int64, error) {
	lr, err := c.c.GetLoads(ctx, &vllmpb.GetLoadsRequest{})
	if protocol.IsUnimplemented(err) {
		return 0, fmt.Errorf("get_loads: %w: %w", protocol.ErrUnimplemented, err)
	}
	if err != nil {
		return 0, fmt.Errorf("get_loads: %w", err)
	}
	return smgwire.SumLoads(lr.GetLoads()), nil
}

// Generate sends a GenerateRequest made by Encode.
func (c *client) Generate(ctx context.Context, msg proto.Message) (protocol.EventStream, error) {
	req, ok := msg.(*vllmpb.GenerateRequest)
	if !ok {
		return nil, fmt.Errorf("vllm: generate: a %T is not a GenerateRequest: %w", msg, protocol.ErrBadRequest)
	}
	cs, err := c.c.Generate(ctx, req)
	if err != nil {
		return nil, err
	}
	return &events{cs: cs, d: NewDecoder(req.GetStream())}, nil
}

// events decodes a Generate stream.
type events struct {
	cs grpc.ServerStreamingClient[vllmpb.GenerateResponse]
	d  *Decoder
}

func (s *events) Recv() (protocol.Event, error) {
	r, err := s.cs.Recv()
	if err != nil {
		return protocol.Event{}, err
	}
	return s.d.Decode(r)
}

// Abort aborts the request id (the engine stops its n > 1 sequences with
// it); vLLM takes no reason.
func (c *client) Abort(ctx context.Context, requestID, _ string) error {
	_, err := c.c.Abort(ctx, &vllmpb.AbortRequest{RequestIds: []string{requestID}})
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
