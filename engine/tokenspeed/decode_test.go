package tokenspeed

import (
	"reflect"
	"slices"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/engine/protocol"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
)

func chunk(index uint32, completion uint32, ids ...uint32) *schedulerpb.GenerateResponse {
	return &schedulerpb.GenerateResponse{RequestId: "r", Response: &schedulerpb.GenerateResponse_Chunk{Chunk: &schedulerpb.GenerateStreamChunk{
		TokenIds: ids, Index: index, PromptTokens: 10, CompletionTokens: completion, CachedTokens: 4}}}
}

func complete(index uint32, finish string, completion uint32, ids ...uint32) *schedulerpb.GenerateResponse {
	return &schedulerpb.GenerateResponse{RequestId: "r", Response: &schedulerpb.GenerateResponse_Complete{Complete: &schedulerpb.GenerateComplete{
		OutputIds: ids, FinishReason: finish, Index: index, PromptTokens: 10, CompletionTokens: completion, CachedTokens: 4}}}
}

// decodeAll runs a stream through a decoder and returns each choice's
// tokens and final event.
func decodeAll(t *testing.T, stream bool, rs ...*schedulerpb.GenerateResponse) (map[int][]uint32, map[int]protocol.Event) {
	t.Helper()
	d := NewDecoder(stream)
	toks, done := map[int][]uint32{}, map[int]protocol.Event{}
	for _, r := range rs {
		ev, err := d.Decode(r)
		if err != nil {
			t.Fatal(err)
		}
		toks[ev.Index] = append(toks[ev.Index], ev.Tokens...)
		if ev.Done {
			done[ev.Index] = ev
		}
	}
	return toks, done
}

func TestDecodeStreamRules(t *testing.T) {
	cases := []struct {
		name   string
		stream bool
		rs     []*schedulerpb.GenerateResponse
		want   map[int][]uint32
	}{
		{"complete repeats every streamed id", true,
			[]*schedulerpb.GenerateResponse{chunk(0, 2, 1, 2), chunk(0, 3, 3), complete(0, "length", 3, 1, 2, 3)},
			map[int][]uint32{0: {1, 2, 3}}},
		{"complete repeats the last step", true,
			[]*schedulerpb.GenerateResponse{chunk(0, 2, 1, 2), chunk(0, 3, 3), complete(0, "stop", 3, 3)},
			map[int][]uint32{0: {1, 2, 3}}},
		{"last step equal to the first tokens", true,
			[]*schedulerpb.GenerateResponse{chunk(0, 1, 5), chunk(0, 2, 5), complete(0, "stop", 2, 5)},
			map[int][]uint32{0: {5, 5}}},
		{"complete extends what was streamed", true,
			[]*schedulerpb.GenerateResponse{chunk(0, 1, 1), complete(0, "stop", 3, 1, 2, 3)},
			map[int][]uint32{0: {1, 2, 3}}},
		{"a choice with no chunk", true,
			[]*schedulerpb.GenerateResponse{chunk(0, 1, 1), complete(1, "stop", 2, 8, 9), complete(0, "stop", 1, 1)},
			map[int][]uint32{0: {1}, 1: {8, 9}}},
		{"n = 2 interleaved", true,
			[]*schedulerpb.GenerateResponse{chunk(1, 1, 7), chunk(0, 1, 1), chunk(0, 2, 2), chunk(1, 2, 8), complete(1, "stop", 2, 7, 8), complete(0, "stop", 2, 2)},
			map[int][]uint32{0: {1, 2}, 1: {7, 8}}},
		{"without stream the complete carries the output", false,
			[]*schedulerpb.GenerateResponse{complete(0, "length", 3, 1, 2, 3)},
			map[int][]uint32{0: {1, 2, 3}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			toks, done := decodeAll(t, c.stream, c.rs...)
			for i, want := range c.want {
				if !slices.Equal(toks[i], want) {
					t.Errorf("choice %d: tokens %v, want %v", i, toks[i], want)
				}
				ev, ok := done[i]
				if !ok || ev.PromptTokens != 10 || ev.CachedTokens != 4 || ev.CompletionTokens != len(want) || ev.Finish == "" {
					t.Errorf("choice %d: final event %+v", i, ev)
				}
			}
			if len(toks) != len(c.want) {
				t.Errorf("choices %v, want %v", toks, c.want)
			}
		})
	}
}

func TestDecodeCompleteDetails(t *testing.T) {
	lp := &schedulerpb.OutputLogProbs{
		TokenLogprobs: []float32{-0.5, -1.5},
		TokenIds:      []uint32{11, 12},
		TopLogprobs: []*schedulerpb.TopLogProbs{
			{Values: []float32{-0.5, -2}, TokenIds: []uint32{11, 99}},
			{Values: []float32{-1.5}, TokenIds: []uint32{12}},
		},
	}
	// Without stream: all tokens, all logprobs, the matched stop token.
	d := NewDecoder(false)
	ev, err := d.Decode(&schedulerpb.GenerateResponse{Response: &schedulerpb.GenerateResponse_Complete{Complete: &schedulerpb.GenerateComplete{
		OutputIds: []uint32{11, 12}, FinishReason: "stop", CompletionTokens: 2, OutputLogprobs: lp,
		MatchedStop: &schedulerpb.GenerateComplete_MatchedTokenId{MatchedTokenId: 151645}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []protocol.Logprob{
		{Token: 11, Logprob: -0.5, Top: []protocol.TopLogprob{{Token: 11, Logprob: -0.5}, {Token: 99, Logprob: -2}}},
		{Token: 12, Logprob: -1.5, Top: []protocol.TopLogprob{{Token: 12, Logprob: -1.5}}},
	}
	if !ev.Done || !slices.Equal(ev.Tokens, []uint32{11, 12}) || !reflect.DeepEqual(ev.Logprobs, want) ||
		ev.MatchedToken == nil || *ev.MatchedToken != 151645 || ev.MatchedStop != "" {
		t.Errorf("event %+v", ev)
	}

	// With stream: the complete's logprobs repeat the chunk's; only the
	// suffix beyond the streamed ids is new. A matched stop string.
	d = NewDecoder(true)
	c := chunk(0, 1, 11)
	c.GetChunk().OutputLogprobs = &schedulerpb.OutputLogProbs{TokenLogprobs: []float32{-0.5}, TokenIds: []uint32{11}}
	if ev, err := d.Decode(c); err != nil || len(ev.Logprobs) != 1 || ev.Logprobs[0].Token != 11 || ev.Done {
		t.Fatalf("chunk event %+v, %v", ev, err)
	}
	ev, err = d.Decode(&schedulerpb.GenerateResponse{Response: &schedulerpb.GenerateResponse_Complete{Complete: &schedulerpb.GenerateComplete{
		OutputIds: []uint32{11, 12}, FinishReason: "stop", CompletionTokens: 2, OutputLogprobs: lp,
		MatchedStop: &schedulerpb.GenerateComplete_MatchedStopStr{MatchedStopStr: "END"}}}})
	if err != nil || !slices.Equal(ev.Tokens, []uint32{12}) || !reflect.DeepEqual(ev.Logprobs, want[1:]) || ev.MatchedStop != "END" || ev.MatchedToken != nil {
		t.Errorf("complete event %+v, %v", ev, err)
	}

	// A response with neither chunk nor complete breaks the protocol.
	if _, err := NewDecoder(true).Decode(&schedulerpb.GenerateResponse{RequestId: "r"}); status.Code(err) != codes.Internal {
		t.Errorf("empty response: %v", err)
	}
}
