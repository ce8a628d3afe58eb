package smgwire

import "github.com/mmgate/mmgate/engine/protocol"

// TopLogprobs is a protocol's TopLogProbs message (values and token ids of
// the alternatives at one position).
type TopLogprobs interface {
	GetValues() []float32
	GetTokenIds() []uint32
}

// OutputLogprobs is a protocol's OutputLogProbs message with its
// TopLogProbs type T. Every protocol defines the same message in its own
// package.
type OutputLogprobs[T TopLogprobs] interface {
	GetTokenLogprobs() []float32
	GetTokenIds() []uint32
	GetTopLogprobs() []T
}

// Logprobs maps output log-probabilities, one per token id; nil when lp
// is nil or empty.
func Logprobs[T TopLogprobs, L OutputLogprobs[T]](lp L) []protocol.Logprob {
	ids := lp.GetTokenIds()
	if len(ids) == 0 {
		return nil
	}
	vals, tops := lp.GetTokenLogprobs(), lp.GetTopLogprobs()
	out := make([]protocol.Logprob, len(ids))
	for k, id := range ids {
		out[k].Token = id
		if k < len(vals) {
			out[k].Logprob = vals[k]
		}
		if k < len(tops) {
			top := tops[k]
			for j, tid := range top.GetTokenIds() {
				t := protocol.TopLogprob{Token: tid}
				if j < len(top.GetValues()) {
					t.Logprob = top.GetValues()[j]
				}
				out[k].Top = append(out[k].Top, t)
			}
		}
	}
	return out
}
