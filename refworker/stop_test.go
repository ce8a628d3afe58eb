package refworker

import (
	"strings"
	"testing"
	"time"

	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
)

// TestStopWindowMatchesFullDecode: stop strings found by decoding only the
// tail stop the generation exactly where decoding everything would (the
// slow, obviously-correct reference is the loop below).
func TestStopWindowMatchesFullDecode(t *testing.T) {
	e := start(t, nil)
	ids := []uint32{1, 2, 3}
	long := uint32(3000)
	full, err := e.generate(t, &schedulerpb.GenerateRequest{RequestId: "full", Tokenized: &schedulerpb.TokenizedInput{InputIds: ids},
		SamplingParams: &schedulerpb.SamplingParams{MaxNewTokens: &long, IgnoreEos: true}})
	if err != nil {
		t.Fatal(err)
	}
	seq := full.complete[0].GetOutputIds()
	text := tok.Decode(seq, true)
	stops := []string{"tokens,", "prompt", text[40:90], text[len(text)-30:], "\n", strings.Repeat("x", 100)}
	for i, st := range stops {
		want := -1
		for k := 1; k <= len(seq); k++ {
			if strings.Contains(tok.Decode(seq[:k], true), st) {
				want = k
				break
			}
		}
		res, err := e.generate(t, &schedulerpb.GenerateRequest{RequestId: "s" + string(rune('a'+i)), Tokenized: &schedulerpb.TokenizedInput{InputIds: ids},
			SamplingParams: &schedulerpb.SamplingParams{MaxNewTokens: &long, IgnoreEos: true, Stop: []string{st}}})
		if err != nil {
			t.Fatal(err)
		}
		got := res.complete[0]
		if want < 0 {
			if got.GetFinishReason() != "length" || len(got.GetOutputIds()) != len(seq) {
				t.Errorf("stop %q (never matches): %s after %d tokens", st, got.GetFinishReason(), len(got.GetOutputIds()))
			}
			continue
		}
		if got.GetFinishReason() != "stop" || len(got.GetOutputIds()) != want || got.GetMatchedStopStr() != st {
			t.Errorf("stop %q: %s %q after %d tokens, want stop after %d", st, got.GetFinishReason(), got.GetMatchedStopStr(), len(got.GetOutputIds()), want)
		}
	}
}

// TestStopLongGenerationIsLinear: a stop string that never matches in a long
// generation costs time linear in its length (it once decoded the whole
// output at every token: minutes for a long answer).
func TestStopLongGenerationIsLinear(t *testing.T) {
	e := start(t, nil)
	n := uint32(100000)
	start := time.Now()
	res, err := e.generate(t, &schedulerpb.GenerateRequest{RequestId: "long", Tokenized: &schedulerpb.TokenizedInput{InputIds: []uint32{1, 2, 3}},
		SamplingParams: &schedulerpb.SamplingParams{MaxNewTokens: &n, IgnoreEos: true, Stop: []string{"zzzz", "never here"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(res.complete[0].GetOutputIds()); got != int(n) {
		t.Fatalf("%d tokens, want %d", got, n)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("100000 tokens with stop strings took %v", d)
	}
}
