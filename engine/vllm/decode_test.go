package vllm

import (
	"slices"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/engine/internal/goldenreq"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/proto/prototest"
	vllmpb "github.com/mmgate/mmgate/proto/vllm"
)

type streamFacts struct {
	prototest.StreamFacts
	Finish map[string]struct {
		FinishReason   string `json:"finish_reason"`
		MatchedStopStr string `json:"matched_stop_str"`
	} `json:"finish"`
}

// TestDecodeStreamGolden decodes the golden n=2 stream (each sequence's last
// step sent as a chunk and again as its complete): every token once, in
// order, with its log-probabilities, and each choice's count right.
func TestDecodeStreamGolden(t *testing.T) {
	var f streamFacts
	msgs := prototest.Load(t, "vllm_generate_stream.binpb", &f, func() *vllmpb.GenerateResponse { return &vllmpb.GenerateResponse{} })
	got := goldenreq.DecodeAll(t, msgs, NewDecoder(true).Decode, func(ev protocol.Event, toks []uint32) {
		for _, lp := range ev.Logprobs {
			if len(lp.Top) != 3 || lp.Top[0].Token != lp.Token {
				t.Errorf("top logprobs %+v", lp)
			}
		}
		if !ev.Done && ev.CompletionTokens != len(toks) {
			t.Errorf("chunk count %d, streamed %d", ev.CompletionTokens, len(toks))
		}
	})
	toks, lps, done := got.Tokens, got.LogprobTokens, got.Done
	for _, s := range f.Sequences {
		i := int(s.Index)
		if !slices.Equal(toks[i], s.IDs) || !slices.Equal(lps[i], s.IDs) {
			t.Errorf("choice %d: tokens %v logprobs %v, want %v", i, toks[i], lps[i], s.IDs)
		}
		ev := done[i]
		fin := f.Finish[string(rune('0'+i))]
		if ev.CompletionTokens != len(s.IDs) || ev.PromptTokens != int(f.PromptTokens) || ev.CachedTokens != int(f.CachedTokens) ||
			ev.Finish != fin.FinishReason || ev.MatchedStop != fin.MatchedStopStr || ev.MatchedToken != nil {
			t.Errorf("choice %d: final %+v, want %+v", i, ev, fin)
		}
	}
}

func TestDecodeRules(t *testing.T) {
	complete := func(idx uint32, finish string, ids ...uint32) *vllmpb.GenerateResponse {
		return &vllmpb.GenerateResponse{Response: &vllmpb.GenerateResponse_Complete{Complete: &vllmpb.GenerateComplete{
			OutputIds: ids, FinishReason: finish, CompletionTokens: uint32(len(ids)), Index: idx,
			MatchedStop: &vllmpb.GenerateComplete_MatchedTokenId{MatchedTokenId: 9}}}}
	}
	// Without stream: each complete carries all of its choice's tokens.
	d := NewDecoder(false)
	for _, idx := range []uint32{1, 0} {
		ev, err := d.Decode(complete(idx, "length", 4, 5, 6))
		if err != nil || !ev.Done || int(idx) != ev.Index || !slices.Equal(ev.Tokens, []uint32{4, 5, 6}) || ev.CompletionTokens != 3 || *ev.MatchedToken != 9 {
			t.Errorf("non-stream complete %+v %v", ev, err)
		}
	}
	// Streaming, a choice that ends without any chunk: its complete's
	// tokens are new.
	d = NewDecoder(true)
	if ev, err := d.Decode(complete(0, "stop", 7)); err != nil || !slices.Equal(ev.Tokens, []uint32{7}) || ev.CompletionTokens != 1 {
		t.Errorf("complete without chunks %+v %v", ev, err)
	}
	if _, err := d.Decode(complete(0, "error")); status.Code(err) != codes.Internal {
		t.Errorf("finish error: %v", err)
	}
	if _, err := d.Decode(&vllmpb.GenerateResponse{}); status.Code(err) != codes.Internal {
		t.Errorf("empty response: %v", err)
	}
}
