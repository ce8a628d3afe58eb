package pipeline

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/prompt"
)

func TestSamplingMapping(t *testing.T) {
	i := func(v int) *int { return &v }
	f := func(v float64) *float64 { return &v }
	seed := int64(-7)
	req := &prompt.Request{
		MaxTokens: i(100), N: i(2), Temperature: f(0.5), TopP: f(0.75), TopK: i(20), MinP: f(0.125), Seed: &seed,
		Stop: []string{"###"}, StopTokenIDs: []uint32{7, 151645}, Presence: f(0.25), Frequency: f(-0.5), Repetition: f(1.5),
		LogitBias: map[string]float64{"42": -100, "0012": 3}, Logprobs: true, TopLogprobs: i(3), SkipSpecial: true, MinTokens: i(4),
		ResponseFormat: json.RawMessage(`{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object"}}}`),
	}
	got, err := sampling(req, 50, 1000, []uint32{151645, 151643})
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
	got, err = sampling(&prompt.Request{IgnoreEOS: true, ResponseFormat: json.RawMessage(`{"type":"json_object"}`)}, 10, 30, []uint32{1})
	if err != nil || got.N != 1 || *got.MaxTokens != 20 || len(got.StopTokenIDs) != 0 || !got.IgnoreEOS || got.Constraint.Kind != protocol.JSONObject {
		t.Errorf("defaults %+v, %v", got, err)
	}
	if got, err := sampling(&prompt.Request{}, 10, 0, nil); err != nil || got.MaxTokens != nil {
		t.Errorf("no context length: %+v, %v", got, err)
	}
	for name, r := range map[string]*prompt.Request{
		"n":               {N: i(0)},
		"logit_bias":      {LogitBias: map[string]float64{"x": 1}},
		"max_tokens":      {MaxTokens: i(0)},
		"over context":    {MaxTokens: i(25)},
		"response_format": {ResponseFormat: json.RawMessage(`{"type":"yaml"}`)},
	} {
		if _, err := sampling(r, 10, 30, nil); !errors.Is(err, prompt.ErrBadRequest) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
