package tokenspeed

import (
	"slices"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/smgwire"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
)

// Decoder turns one Generate stream's responses into events by the
// protocol's stream rules (see the package documentation). It keeps, per
// choice, the ids streamed so far. Use one Decoder per stream, from one
// goroutine.
type Decoder struct {
	stream   bool
	streamed map[uint32][]uint32 // by choice index
}

// NewDecoder returns a decoder for a request sent with stream set or not.
func NewDecoder(stream bool) *Decoder {
	return &Decoder{stream: stream, streamed: map[uint32][]uint32{}}
}

// Decode maps one response. A response with neither a chunk nor a complete
// is an INTERNAL status error (the worker broke the protocol).
func (d *Decoder) Decode(r *schedulerpb.GenerateResponse) (protocol.Event, error) {
	switch v := r.GetResponse().(type) {
	case *schedulerpb.GenerateResponse_Chunk:
		c := v.Chunk
		if d.stream {
			d.streamed[c.GetIndex()] = append(d.streamed[c.GetIndex()], c.GetTokenIds()...)
		}
		return smgwire.ChunkEvent[*schedulerpb.TopLogProbs, *schedulerpb.OutputLogProbs](c), nil
	case *schedulerpb.GenerateResponse_Complete:
		return d.complete(v.Complete), nil
	}
	return protocol.Event{}, status.Error(codes.Internal, "tokenspeed: a response with neither chunk nor complete")
}

// complete maps a choice's final message.
func (d *Decoder) complete(c *schedulerpb.GenerateComplete) protocol.Event {
	ev := smgwire.CompleteEvent(c)
	out, lps := c.GetOutputIds(), logprobs(c.GetOutputLogprobs())
	if d.stream {
		// The output repeats streamed tokens; only what extends them is new.
		seen := d.streamed[c.GetIndex()]
		delete(d.streamed, c.GetIndex())
		if len(out) <= len(seen) || !slices.Equal(out[:len(seen)], seen) {
			return ev
		}
		if len(lps) == len(out) {
			lps = lps[len(seen):]
		} else {
			lps = nil
		}
		out = out[len(seen):]
	}
	ev.Tokens, ev.Logprobs = out, lps
	return ev
}

// logprobs maps the output log-probabilities, one per token id.
func logprobs(lp *schedulerpb.OutputLogProbs) []protocol.Logprob {
	return smgwire.Logprobs[*schedulerpb.TopLogProbs](lp)
}
