package pipeline

import (
	"encoding/json"
	"testing"

	"github.com/mmgate/mmgate/internal/apierr"
)

// TestVLLMSampling: sampling_params as vLLM's render writes them for a
// request (ChatCompletionRequest.to_sampling_params, SamplingParams
// .from_optional and __post_init__, msgspec's omit_defaults): the request's
// value, else the generation config's, else vLLM's default; fields at
// their default left out; stop, stop_token_ids and bad_words always there.
func TestVLLMSampling(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	i := func(v int) *int { return &v }
	qwen := GenerationDefaults{Temperature: f(0.7), TopP: f(0.8), TopK: i(20), RepetitionPenalty: f(1)}
	base := `"stop":[],"stop_token_ids":[],"output_kind":2,"skip_clone":true,"bad_words":[],"skip_reading_prefix_cache":false`
	for _, c := range []struct {
		name, fields string
		max          int // the front half's max_tokens; 0: none
		gen          GenerationDefaults
		want         string
	}{
		{"neutral defaults", ``, 100, GenerationDefaults{}, `{"stop":[],"stop_token_ids":[],"max_tokens":100,"output_kind":2,"skip_clone":true,"bad_words":[],"skip_reading_prefix_cache":false}`},
		{"max_tokens 16 is vLLM's default", ``, 16, GenerationDefaults{}, `{` + base + `}`},
		{"generation config", ``, 100, qwen, `{"temperature":0.7,"top_p":0.8,"top_k":20,"stop":[],"stop_token_ids":[],"max_tokens":100,"output_kind":2,"skip_clone":true,"bad_words":[],"skip_reading_prefix_cache":false}`},
		{"request wins", `, "temperature": 1, "top_k": -1, "top_p": 0.5`, 100, qwen, `{"top_p":0.5,"top_k":-1,"stop":[],"stop_token_ids":[],"max_tokens":100,"output_kind":2,"skip_clone":true,"bad_words":[],"skip_reading_prefix_cache":false}`},
		{"greedy resets top_p, top_k, min_p", `, "temperature": 0, "min_p": 0.5`, 100, qwen, `{"temperature":0,"stop":[],"stop_token_ids":[],"max_tokens":100,"output_kind":2,"skip_clone":true,"bad_words":[],"skip_reading_prefix_cache":false}`},
		{"low temperature raised", `, "temperature": 0.001`, 100, GenerationDefaults{}, `{"temperature":0.01,"stop":[],"stop_token_ids":[],"max_tokens":100,"output_kind":2,"skip_clone":true,"bad_words":[],"skip_reading_prefix_cache":false}`},
		{"max_new_tokens caps without a request budget", ``, 100, GenerationDefaults{MaxNewTokens: i(40)}, `{"stop":[],"stop_token_ids":[],"max_tokens":40,"output_kind":2,"skip_clone":true,"bad_words":[],"skip_reading_prefix_cache":false}`},
		{"max_new_tokens ignored with one", `, "max_tokens": 90`, 90, GenerationDefaults{MaxNewTokens: i(40)}, `{"stop":[],"stop_token_ids":[],"max_tokens":90,"output_kind":2,"skip_clone":true,"bad_words":[],"skip_reading_prefix_cache":false}`},
		{"stops", `, "stop": ["ab", "wxyz", "é€"], "stop_token_ids": [5, 3, 5], "bad_words": ["q", "q", "r"]`, 100, GenerationDefaults{},
			`{"stop":["ab","wxyz","é€"],"stop_token_ids":[5,3],"max_tokens":100,"output_kind":2,"skip_clone":true,"output_text_buffer_length":3,"bad_words":["q","r"],"skip_reading_prefix_cache":false}`},
		{"stop kept in output", `, "stop": "abc", "include_stop_str_in_output": true`, 100, GenerationDefaults{},
			`{"stop":["abc"],"stop_token_ids":[],"max_tokens":100,"include_stop_str_in_output":true,"output_kind":2,"skip_clone":true,"bad_words":[],"skip_reading_prefix_cache":false}`},
		{"streaming and the rest", `, "stream": true, "n": 3, "seed": 9, "presence_penalty": 0.5, "frequency_penalty": -1, "repetition_penalty": 1.1,
			"min_tokens": 2, "logprobs": true, "skip_special_tokens": false, "spaces_between_special_tokens": false, "ignore_eos": true,
			"logit_bias": {"7": 300}, "allowed_token_ids": [1, 2], "response_format": {"type": "json_object"},
			"vllm_xargs": {"k": "v"}, "kv_transfer_params": {"do_remote_decode": true}`, 100, GenerationDefaults{},
			`{"n":3,"presence_penalty":0.5,"frequency_penalty":-1,"repetition_penalty":1.1,"seed":9,"stop":[],"stop_token_ids":[],"ignore_eos":true,` +
				`"max_tokens":100,"min_tokens":2,"logprobs":0,"skip_special_tokens":false,"spaces_between_special_tokens":false,"output_kind":1,"skip_clone":true,` +
				`"structured_outputs":{"json":null,"regex":null,"choice":null,"grammar":null,"json_object":true,"disable_any_whitespace":false,"disable_additional_properties":false,"whitespace_pattern":null,"structural_tag":null},` +
				`"logit_bias":{"7":100},"allowed_token_ids":[1,2],"extra_args":{"k":"v","kv_transfer_params":{"do_remote_decode":true}},"bad_words":[],"skip_reading_prefix_cache":false}`},
		{"seed -1 is none", `, "seed": -1, "ec_transfer_params": {"x": 1}`, 100, GenerationDefaults{},
			`{"stop":[],"stop_token_ids":[],"max_tokens":100,"output_kind":2,"skip_clone":true,"extra_args":{"ec_transfer_params":{"x":1}},"bad_words":[],"skip_reading_prefix_cache":false}`},
	} {
		p := params(t, c.fields)
		var maxTokens *uint32
		if c.max > 0 {
			m := uint32(c.max)
			maxTokens = &m
		}
		sp, err := vllmSampling(p, maxTokens, c.gen)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if b, _ := json.Marshal(sp); string(b) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, b, c.want)
		}
	}
}

// TestVLLMSamplingErrors: what SamplingParams._verify_args refuses is a
// 400 naming the field.
func TestVLLMSamplingErrors(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	hundred := uint32(100)
	for _, c := range []struct {
		fields, param string
		gen           GenerationDefaults
	}{
		{`, "temperature": 2.5`, "temperature", GenerationDefaults{}},
		{`, "top_p": 0`, "top_p", GenerationDefaults{}},
		{`, "top_k": -2`, "top_k", GenerationDefaults{}},
		{`, "min_p": 1.5`, "min_p", GenerationDefaults{}},
		{`, "presence_penalty": 3`, "presence_penalty", GenerationDefaults{}},
		{`, "frequency_penalty": -3`, "frequency_penalty", GenerationDefaults{}},
		{`, "repetition_penalty": 0`, "repetition_penalty", GenerationDefaults{}},
		{``, "top_p", GenerationDefaults{TopP: f(0)}},
		{`, "temperature": 0, "n": 2`, "n", GenerationDefaults{}},
		{`, "min_tokens": 101`, "min_tokens", GenerationDefaults{}},
		{`, "stop": ["a", ""]`, "stop[1]", GenerationDefaults{}},
	} {
		_, err := vllmSampling(params(t, c.fields), &hundred, c.gen)
		if e := apierr.From(err); err == nil || e.Status != 400 || e.Param != c.param {
			t.Errorf("%s: %v (param %v)", c.fields, err, e.Param)
		}
	}
}

func TestGenerationDefaults(t *testing.T) {
	dir := t.TempDir()
	if g, err := readGenerationDefaults(dir); err != nil || g != (GenerationDefaults{}) {
		t.Errorf("no file: %+v, %v", g, err)
	}
	writeFile(t, dir, "generation_config.json", `{"bos_token_id": 1, "do_sample": true, "temperature": 0.6, "top_k": 20, "top_p": 0.95, "max_new_tokens": 512, "min_p": null}`)
	g, err := readGenerationDefaults(dir)
	if err != nil || *g.Temperature != 0.6 || *g.TopK != 20 || *g.TopP != 0.95 || *g.MaxNewTokens != 512 || g.MinP != nil || g.RepetitionPenalty != nil {
		t.Errorf("%+v, %v", g, err)
	}
	writeFile(t, dir, "generation_config.json", `{"top_k": "x"}`)
	if _, err := readGenerationDefaults(dir); err == nil {
		t.Error("a bad file read without error")
	}
}
