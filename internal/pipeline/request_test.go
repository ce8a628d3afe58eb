package pipeline

import (
	"errors"
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/tokenizer"
	"github.com/mmgate/mmgate/tokenizer/tokenizertest"
)

// params parses a chat request's shared fields, as the server does.
func params(t *testing.T, fields string) *openai.Params {
	t.Helper()
	req, err := openai.ParseChat([]byte(`{"messages": [{"role": "user", "content": "x"}]` + fields + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return &req.Params
}

func TestSamplingMapping(t *testing.T) {
	seed := int64(-7)
	req := params(t, `, "max_tokens": 100, "n": 2, "temperature": 0.5, "top_p": 0.75, "top_k": 20, "min_p": 0.125, "seed": -7,
		"stop": ["###"], "stop_token_ids": [7, 151645], "presence_penalty": 0.25, "frequency_penalty": -0.5, "repetition_penalty": 1.5,
		"logit_bias": {"42": -100, "0012": 3}, "logprobs": true, "top_logprobs": 3, "min_tokens": 4,
		"response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type":"object"}}}`)
	got, err := sampling(req, 50, 1000, []uint32{151645, 151643}, BudgetStrict)
	if err != nil {
		t.Fatal(err)
	}
	f32 := func(v float32) *float32 { return &v }
	topK, maxNew := int32(20), uint32(100)
	want := protocol.Sampling{
		Temperature: f32(0.5), TopP: f32(0.75), TopK: &topK, MinP: f32(0.125),
		FrequencyPenalty: f32(-0.5), PresencePenalty: f32(0.25), RepetitionPenalty: f32(1.5),
		MaxTokens: &maxNew, MinTokens: 4,
		Stop: []string{"###"}, StopTokenIDs: []uint32{7, 151645, 151643},
		SkipSpecialTokens: true, N: 2, Seed: &seed,
		LogitBias: map[uint32]float32{42: -100, 12: 3},
		Logprobs:  true, TopLogprobs: 3,
		Constraint: protocol.Constraint{Kind: protocol.JSONSchema, Value: `{"type":"object"}`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sampling\n got %+v\nwant %+v", got, want)
	}

	// Defaults: one choice, max_tokens from the context, eos as stop ids
	// unless ignore_eos; without a context length, no cap.
	got, err = sampling(params(t, `, "ignore_eos": true, "response_format": {"type": "json_object"}`), 10, 30, []uint32{1}, BudgetStrict)
	if err != nil || got.N != 1 || *got.MaxTokens != 20 || len(got.StopTokenIDs) != 0 || !got.IgnoreEOS || got.Constraint.Kind != protocol.JSONObject {
		t.Errorf("defaults %+v, %v", got, err)
	}
	if got, err := sampling(&openai.Params{}, 10, 0, nil, BudgetStrict); err != nil || got.MaxTokens != nil {
		t.Errorf("no context length: %+v, %v", got, err)
	}
	// The fields themselves are checked when the request is parsed (the
	// openai package's tests); what depends on the model is checked here.
	if _, err := sampling(params(t, `, "max_tokens": 25`), 10, 30, nil, BudgetStrict); !errors.Is(err, openai.ErrBadRequest) {
		t.Errorf("over context: %v", err)
	}
	var re *openai.RequestError
	if _, err := sampling(&openai.Params{}, 30, 30, nil, BudgetStrict); !errors.As(err, &re) || re.Param != "max_tokens" {
		t.Errorf("prompt fills the context: %v", err)
	}
}

// TestBudgetClamp: render's rule takes the smaller of the request's
// max_tokens and what the context leaves, and refuses only a prompt that
// fills the context on its own.
func TestBudgetClamp(t *testing.T) {
	for _, c := range []struct {
		fields           string
		promptLen, ctx   int
		want             uint32
		wantErr, hasWant bool
	}{
		{``, 10, 30, 20, false, true},
		{`, "max_tokens": 1`, 10, 30, 1, false, true},
		{`, "max_tokens": 25`, 10, 30, 20, false, true},
		{`, "max_completion_tokens": 1000000`, 29, 30, 1, false, true},
		{`, "max_tokens": 5`, 10, 0, 5, false, true},
		{``, 10, 0, 0, false, false},
		{`, "max_tokens": 1`, 30, 30, 0, true, false},
	} {
		got, err := sampling(params(t, c.fields), c.promptLen, c.ctx, nil, BudgetClamp)
		switch {
		case c.wantErr:
			if !errors.Is(err, openai.ErrBadRequest) {
				t.Errorf("%s prompt %d ctx %d: err %v, want a bad request", c.fields, c.promptLen, c.ctx, err)
			}
		case err != nil || (got.MaxTokens != nil) != c.hasWant || c.hasWant && *got.MaxTokens != c.want:
			t.Errorf("%s prompt %d ctx %d: %v, %v; want %d", c.fields, c.promptLen, c.ctx, got.MaxTokens, err, c.want)
		}
	}
}

// TestStopTokens: a stop string's ids are its own tokens, without the
// post-processor's specials, so that a one-token stop is one id for a
// tokenizer that prepends <bos> (Gemma 3's).
func TestStopTokens(t *testing.T) {
	tok, err := tokenizer.Load(tokenizertest.ModelDir(t, "gemma3"))
	if err != nil {
		t.Fatal(err)
	}
	nl, ok := tok.TokenID("\n")
	if !ok {
		t.Fatal("no newline token")
	}
	if len(tok.Encode("\n")) != 2 {
		t.Fatalf("Encode(\"\\n\") = %v: the fixture no longer adds <bos>", tok.Encode("\n"))
	}
	got := stopTokens(tok, []string{"\n", "Hello world"})
	if len(got) != 2 || !reflect.DeepEqual(got[0], []uint32{nl}) || len(got[1]) != 2 {
		t.Errorf("stop tokens %v, want [[%d] [2 ids]]", got, nl)
	}
}
