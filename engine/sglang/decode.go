package sglang

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/smgwire"
	sglangpb "github.com/mmgate/mmgate/proto/sglang"
)

// Decoder turns one Generate stream's responses into events by the
// protocol's stream rules (see the package documentation). Use one Decoder
// per stream, from one goroutine.
type Decoder struct {
	stream    bool
	streamed  map[uint32]bool // choices that had a chunk
	completes int             // completes seen (their order numbers them without stream)
}

// NewDecoder returns a decoder for a request sent with stream set or not.
func NewDecoder(stream bool) *Decoder {
	return &Decoder{stream: stream, streamed: map[uint32]bool{}}
}

// Decode maps one response. A response with neither a chunk nor a complete
// is an INTERNAL status error.
func (d *Decoder) Decode(r *sglangpb.GenerateResponse) (protocol.Event, error) {
	switch v := r.GetResponse().(type) {
	case *sglangpb.GenerateResponse_Chunk:
		c := v.Chunk
		d.streamed[c.GetIndex()] = true
		return smgwire.ChunkEvent[*sglangpb.TopLogProbs, *sglangpb.OutputLogProbs](c), nil
	case *sglangpb.GenerateResponse_Complete:
		return d.complete(v.Complete), nil
	}
	return protocol.Event{}, status.Error(codes.Internal, "sglang: a response with neither chunk nor complete")
}

// complete maps a choice's final message.
func (d *Decoder) complete(c *sglangpb.GenerateComplete) protocol.Event {
	ev := smgwire.CompleteEvent(c)
	if !d.stream {
		ev.Index = d.completes
	}
	d.completes++
	if d.stream && d.streamed[c.GetIndex()] {
		// The complete repeats the last chunk's step: nothing new.
		return ev
	}
	ev.Tokens, ev.Logprobs = c.GetOutputIds(), logprobs(c.GetOutputLogprobs())
	if ev.CompletionTokens == 0 {
		ev.CompletionTokens = len(ev.Tokens)
	}
	return ev
}

func logprobs(lp *sglangpb.OutputLogProbs) []protocol.Logprob {
	return smgwire.Logprobs[*sglangpb.TopLogProbs](lp)
}
