package pipeline

import (
	"errors"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/tokenizer/tokenizertest"
)

// Neutral events become text events: tokens decoded once per choice, stop
// strings cut, a last event that carries tokens (a non-streaming final
// message) flushed, finish reasons and counts kept.
func TestGenerationHandlesEvents(t *testing.T) {
	tok := tokenizertest.Qwen3(t)
	g := &generation{tok: tok, n: 2, stops: []string{"lo w"}, logprob: true}
	for range 2 {
		g.choices = append(g.choices, &choiceState{dec: tok.NewStream(true)})
	}
	hello, world, hi := tok.Encode("Hello"), tok.Encode(" world"), tok.Encode("Hi there")
	events := []protocol.Event{
		{Index: 0, Tokens: hello, Logprobs: []protocol.Logprob{{Token: hello[0], Logprob: -0.25, Top: []protocol.TopLogprob{{Token: hello[0], Logprob: -0.25}}}}},
		{Index: 1, Tokens: hi, Done: true, Finish: "length", CompletionTokens: len(hi), CachedTokens: 3},
		{Index: 0, Tokens: world, Done: true, Finish: "length"},
		{Index: 0, Tokens: world}, // after the choice's end: ignored
	}
	for _, ev := range events {
		if err := g.handle(ev); err != nil {
			t.Fatal(err)
		}
	}
	text := map[int]string{}
	final := map[int]openai.Event{}
	var lps []openai.Logprob
	for _, ev := range g.queue {
		text[ev.Index] += ev.Text
		lps = append(lps, ev.Logprobs...)
		if ev.Final {
			final[ev.Index] = ev
		}
	}
	if text[0] != "Hel" || final[0].FinishReason != "stop" || final[0].CompletionTokens != len(hello)+len(world) {
		t.Errorf("choice 0: %q, final %+v (the stop string ends it)", text[0], final[0])
	}
	if text[1] != "Hi there" || final[1].FinishReason != "length" || final[1].CompletionTokens != len(hi) || g.cached != 3 {
		t.Errorf("choice 1: %q, final %+v, cached %d", text[1], final[1], g.cached)
	}
	if len(lps) != 1 || lps[0].Token != tok.Decode(hello[:1], false) || lps[0].Logprob != -0.25 || len(lps[0].TopLogprobs) != 1 {
		t.Errorf("logprobs %+v", lps)
	}
	if err := g.handle(protocol.Event{Index: 2}); !errors.Is(err, engine.ErrWorker) || !strings.Contains(err.Error(), "choice 2 of 2") {
		t.Errorf("event for a choice the request lacks: %v", err)
	}
}
