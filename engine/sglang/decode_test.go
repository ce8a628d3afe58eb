package sglang

import (
	"slices"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/engine/internal/goldenreq"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/proto/prototest"
	sglangpb "github.com/mmgate/mmgate/proto/sglang"
)

type streamFacts struct {
	prototest.StreamFacts
	Matched []uint32 `json:"matched_token_ids"`
}

// TestDecodeStreamGolden decodes the golden n=2 stream: every token once,
// log-probabilities per token, the running completion count, and the
// matched stop ids SGLang reports (end-of-sequence included).
func TestDecodeStreamGolden(t *testing.T) {
	var f streamFacts
	msgs := prototest.Load(t, "sglang_generate_stream.binpb", &f, func() *sglangpb.GenerateResponse { return &sglangpb.GenerateResponse{} })
	got := goldenreq.DecodeAll(t, msgs, NewDecoder(true).Decode, func(ev protocol.Event, toks []uint32) {
		if ev.CompletionTokens != len(toks) {
			t.Errorf("count %d, streamed %d", ev.CompletionTokens, len(toks))
		}
	})
	toks, lps, done := got.Tokens, got.LogprobTokens, got.Done
	for k, s := range f.Sequences {
		i := int(s.Index)
		ev := done[i]
		if !slices.Equal(toks[i], s.IDs) || !slices.Equal(lps[i], s.IDs) || ev.CompletionTokens != len(s.IDs) ||
			ev.PromptTokens != int(f.PromptTokens) || ev.CachedTokens != int(f.CachedTokens) || ev.Finish != "stop" ||
			ev.MatchedToken == nil || *ev.MatchedToken != f.Matched[k] {
			t.Errorf("choice %d: tokens %v logprobs %v final %+v, want %v", i, toks[i], lps[i], ev, s.IDs)
		}
	}
}

// TestDecodeNonStreaming: the completes of n > 1 all say index 0 and carry
// every token; they are numbered in arrival order.
func TestDecodeNonStreaming(t *testing.T) {
	d := NewDecoder(false)
	for k, ids := range [][]uint32{{1, 2}, {3}, {4, 5, 6}} {
		ev, err := d.Decode(&sglangpb.GenerateResponse{Response: &sglangpb.GenerateResponse_Complete{Complete: &sglangpb.GenerateComplete{
			OutputIds: ids, FinishReason: "length", CompletionTokens: uint32(len(ids)),
			MatchedStop: &sglangpb.GenerateComplete_MatchedStopStr{MatchedStopStr: "x"}}}})
		if err != nil || ev.Index != k || !ev.Done || !slices.Equal(ev.Tokens, ids) || ev.CompletionTokens != len(ids) || ev.MatchedStop != "x" {
			t.Errorf("complete %d: %+v %v", k, ev, err)
		}
	}
	if _, err := d.Decode(&sglangpb.GenerateResponse{}); status.Code(err) != codes.Internal {
		t.Errorf("empty response: %v", err)
	}
}
