package vllm

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/smgwire"
	vllmpb "github.com/mmgate/mmgate/proto/vllm"
)

// Decoder turns one Generate stream's responses into events by the
// protocol's stream rules (see the package documentation). It counts each
// choice's streamed tokens. Use one Decoder per stream, from one goroutine.
type Decoder struct {
	stream bool
	count  map[uint32]int // tokens streamed per choice
}

// NewDecoder returns a decoder for a request sent with stream set or not.
func NewDecoder(stream bool) *Decoder {
	return &Decoder{stream: stream, count: map[uint32]int{}}
}

// Decode maps one response. A response with neither a chunk nor a complete,
// or a complete whose finish reason is "error", is an INTERNAL status
// error.
func (d *Decoder) Decode(r *vllmpb.GenerateResponse) (protocol.Event, error) {
	switch v := r.GetResponse().(type) {
	case *vllmpb.GenerateResponse_Chunk:
		c := v.Chunk
		d.count[c.GetIndex()] += len(c.GetTokenIds())
		ev := smgwire.ChunkEvent[*vllmpb.TopLogProbs, *vllmpb.OutputLogProbs](c)
		ev.CompletionTokens = d.count[c.GetIndex()] // the chunk's count is the step's
		return ev, nil
	case *vllmpb.GenerateResponse_Complete:
		return d.complete(v.Complete)
	}
	return protocol.Event{}, status.Error(codes.Internal, "vllm: a response with neither chunk nor complete")
}

// complete maps a choice's final message.
func (d *Decoder) complete(c *vllmpb.GenerateComplete) (protocol.Event, error) {
	if c.GetFinishReason() == "error" {
		return protocol.Event{}, status.Errorf(codes.Internal, "vllm: the engine returned no output for choice %d", c.GetIndex())
	}
	ev := smgwire.CompleteEvent(c)
	n, streamed := d.count[c.GetIndex()]
	delete(d.count, c.GetIndex())
	if d.stream && streamed {
		// The complete repeats the last chunk's step: nothing new.
		ev.CompletionTokens = n
		return ev, nil
	}
	ev.Tokens, ev.Logprobs = c.GetOutputIds(), logprobs(c.GetOutputLogprobs())
	ev.CompletionTokens = len(ev.Tokens)
	return ev, nil
}

func logprobs(lp *vllmpb.OutputLogProbs) []protocol.Logprob {
	return smgwire.Logprobs[*vllmpb.TopLogProbs](lp)
}
