package openai_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/internal/apierr"
	"github.com/mmgate/mmgate/openai"
)

// TestRenderParams: vLLM's render fields, their defaults (return_mm_kwargs
// and spaces_between_special_tokens true, stream_options include_usage
// true), and the last of duplicate keys winning, as a router splicing
// "return_mm_kwargs": false sends them.
func TestRenderParams(t *testing.T) {
	r, err := openai.ParseChat([]byte(`{"messages": [{"role": "user", "content": "hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Render; !p.ReturnMMKwargs || !p.SpacesBetweenSpecial || p.CacheSalt != nil || p.Priority != 0 || p.StreamOptions != nil || p.UseBeamSearch {
		t.Errorf("defaults %+v", p)
	}
	body := `{"messages": [{"role": "user", "content": "hi"}], "return_mm_kwargs": true, "cache_salt": "sälz", "priority": -3,
	 "stream": true, "stream_options": {"continuous_usage_stats": true}, "bad_words": ["x", "y"], "include_stop_str_in_output": true,
	 "spaces_between_special_tokens": false, "allowed_token_ids": [5, 6], "kv_transfer_params": {"a": [1]}, "vllm_xargs": {"k": 1},
	 "use_beam_search": true, "truncate_prompt_tokens": 9, "chat_template": "{{x}}", "add_special_tokens": true,
	 "return_mm_kwargs": false}`
	if r, err = openai.ParseChat([]byte(body)); err != nil {
		t.Fatal(err)
	}
	p := r.Render
	switch {
	case p.ReturnMMKwargs, *p.CacheSalt != "sälz", p.Priority != -3, !p.StreamOptions.IncludeUsage, !p.StreamOptions.ContinuousUsageStats,
		len(p.BadWords) != 2, !p.IncludeStopStr, p.SpacesBetweenSpecial, len(p.AllowedTokenIDs) != 2,
		string(p.KVTransfer) != `{"a": [1]}`, string(p.Xargs) != `{"k": 1}`, p.ECTransfer != nil,
		!p.UseBeamSearch, *p.TruncatePromptTokens != 9, *p.ChatTemplate != "{{x}}", !*p.AddSpecialTokens:
		t.Errorf("parsed %+v", p)
	}
	c, err := openai.ParseCompletion([]byte(`{"prompt": "x", "return_mm_kwargs": false, "cache_salt": "s"}`))
	if err != nil || c.Params.Render.ReturnMMKwargs || *c.Params.Render.CacheSalt != "s" {
		t.Errorf("completion render params %+v, %v", c.Params.Render, err)
	}
}

func TestRenderParamErrors(t *testing.T) {
	for _, c := range []struct{ fields, param string }{
		{`"cache_salt": ""`, "cache_salt"},
		{`"cache_salt": "` + strings.Repeat("é", openai.MaxCacheSalt+1) + `"`, "cache_salt"},
		{`"cache_salt": 5`, "cache_salt"},
		{`"priority": 1.5`, "priority"},
		{`"priority": 9223372036854775808`, "priority"},
		{`"kv_transfer_params": [1]`, "kv_transfer_params"},
		{`"vllm_xargs": "x"`, "vllm_xargs"},
		{`"bad_words": [""]`, "bad_words[0]"},
		{`"return_mm_kwargs": "no"`, "return_mm_kwargs"},
		{`"allowed_token_ids": [-1]`, "allowed_token_ids"},
	} {
		_, err := openai.ParseChat([]byte(`{"messages": [{"role": "user", "content": "hi"}], ` + c.fields + `}`))
		if e := apierr.From(err); err == nil || e.Status != 400 || e.Param != c.param {
			t.Errorf("%s: %v (param %v)", c.fields, err, e.Param)
		}
	}
	if _, err := openai.ParseChat([]byte(`{"messages": [{"role": "user", "content": "hi"}], "cache_salt": "` + strings.Repeat("é", openai.MaxCacheSalt) + `"}`)); err != nil {
		t.Errorf("a salt of %d characters: %v", openai.MaxCacheSalt, err)
	}
}

func TestParseCompletionBatch(t *testing.T) {
	for _, c := range []struct {
		body  string
		texts []string
		ids   [][]uint32
	}{
		{`{"prompt": "hi"}`, []string{"hi"}, [][]uint32{nil}},
		{`{"prompt": ["a", "b", "c"]}`, []string{"a", "b", "c"}, [][]uint32{nil, nil, nil}},
		{`{"prompt": [1, 2]}`, []string{""}, [][]uint32{{1, 2}}},
		{`{"prompt": [[1], [2, 3]]}`, []string{"", ""}, [][]uint32{{1}, {2, 3}}},
	} {
		reqs, err := openai.ParseCompletionBatch([]byte(c.body))
		if err != nil || len(reqs) != len(c.texts) {
			t.Errorf("%s: %d requests, %v", c.body, len(reqs), err)
			continue
		}
		for i, r := range reqs {
			if r.Prompt != c.texts[i] || len(r.PromptIDs) != len(c.ids[i]) || r.Params != reqs[0].Params {
				t.Errorf("%s: prompt %d = %+v", c.body, i, r)
			}
		}
	}
	for _, body := range []string{`{"prompt": ["a", ""]}`, `{"prompt": [[1], []]}`, `{"prompt": ["a", [1]]}`, `{"prompt": []}`, `{}`} {
		if _, err := openai.ParseCompletionBatch([]byte(body)); apierr.From(err).Status != 400 {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func TestParseTokenize(t *testing.T) {
	r, err := openai.ParseTokenize([]byte(`{"model": "m", "prompt": "a b", "return_token_strs": true}`))
	if err != nil || r.Chat != nil || r.Prompt != "a b" || !r.AddSpecialTokens || !r.ReturnTokenStrs || r.Model != "m" {
		t.Errorf("prompt: %+v, %v", r, err)
	}
	r, err = openai.ParseTokenize([]byte(`{"model": "m", "messages": [{"role": "user", "content": "hi"}], "add_generation_prompt": false}`))
	if err != nil || r.Chat == nil || r.Chat.AddGenerationPrompt || r.AddSpecialTokens {
		t.Errorf("messages: %+v, %v", r, err)
	}
	for _, body := range []string{`{"model": "m"}`, `{"prompt": 5}`, `{"messages": 5}`, `[]`} {
		if _, err := openai.ParseTokenize([]byte(body)); apierr.From(err).Status != 400 {
			t.Errorf("%s: %v", body, err)
		}
	}
	d, err := openai.ParseDetokenize([]byte(`{"model": "m", "tokens": [1, 2]}`))
	if err != nil || len(d.Tokens) != 2 || d.Model != "m" {
		t.Errorf("detokenize: %+v, %v", d, err)
	}
	for _, body := range []string{`{}`, `{"tokens": [-1]}`, `{"tokens": "x"}`, `{"tokens": [4294967296]}`} {
		if _, err := openai.ParseDetokenize([]byte(body)); apierr.From(err).Status != 400 {
			t.Errorf("%s: %v", body, err)
		}
	}
}

// TestGenerateRequestJSON: every field of vLLM's GenerateRequest, nulls
// included, in vLLM's order; sampling fields at their default left out.
func TestGenerateRequestJSON(t *testing.T) {
	one := 1
	g := openai.GenerateRequest{RequestID: "chatcmpl-x", TokenIDs: []uint32{1}, OutputMode: "tokens",
		SamplingParams: openai.SamplingParams{MaxTokens: &one, OutputKind: openai.OutputFinalOnly, SkipClone: true, Stop: []string{}, StopTokenIDs: []uint32{}, BadWords: []string{}}}
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"request_id":"chatcmpl-x","token_ids":[1],"token_offsets":null,"features":null,"content_parts":null,` +
		`"sampling_params":{"stop":[],"stop_token_ids":[],"max_tokens":1,"output_kind":2,"skip_clone":true,"bad_words":[],"skip_reading_prefix_cache":false},` +
		`"model":null,"reasoning_ended":null,"reasoning_parser_kwargs":null,"return_token_ids":null,"output_mode":"tokens",` +
		`"stream":false,"stream_options":null,"cache_salt":null,"priority":0,"kv_transfer_params":null,"ec_transfer_params":null}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	f := openai.MultiModalFeatures{MMHashes: map[string][]string{"image": {"ab"}}, MMPlaceholders: map[string][]openai.PlaceholderRange{"image": {{Offset: 3, Length: 4}}}}
	if b, _ := json.Marshal(f); string(b) != `{"mm_hashes":{"image":["ab"]},"mm_placeholders":{"image":[{"offset":3,"length":4}]},"kwargs_data":null,"mm_metadata":null}` {
		t.Errorf("features %s", b)
	}
}

func FuzzParseTokenize(f *testing.F) {
	for _, s := range []string{`{"prompt":"hi"}`, `{"model":"m","messages":[{"role":"user","content":"x"}]}`, `{"prompt":null,"messages":[]}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := openai.ParseTokenize(body)
		if err != nil {
			if e := apierr.From(err); e.Status != 400 {
				t.Fatalf("error maps to %d: %v", e.Status, err)
			}
			return
		}
		if r.Chat != nil && r.Prompt != "" {
			t.Fatalf("both a prompt and messages: %+v", r)
		}
	})
}

func FuzzParseCompletionBatch(f *testing.F) {
	for _, s := range []string{`{"prompt":["a","b"]}`, `{"prompt":[[1],[2,3]]}`, `{"prompt":"x","cache_salt":"s","priority":2}`, `{"prompt":[1]}`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		reqs, err := openai.ParseCompletionBatch(body)
		if err != nil {
			if e := apierr.From(err); e.Status != 400 {
				t.Fatalf("error maps to %d: %v", e.Status, err)
			}
			return
		}
		if len(reqs) == 0 {
			t.Fatal("no prompt and no error")
		}
		for _, r := range reqs {
			if (r.Prompt == "") == (r.PromptIDs == nil) || r.Params != reqs[0].Params {
				t.Fatalf("prompt %+v", r)
			}
		}
	})
}
