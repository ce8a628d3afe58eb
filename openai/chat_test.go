package openai

import (
	"errors"
	"testing"
)

func TestParseFields(t *testing.T) {
	body := `{"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true,
	 "stream_options": {"include_usage": true}, "max_tokens": 5, "max_completion_tokens": 7,
	 "temperature": 0.5, "top_k": 3, "min_p": 0.1, "seed": 42, "stop": "x", "ignore_eos": true,
	 "skip_special_tokens": false, "media_order": "authored", "continue_final_message": true,
	 "chat_template_kwargs": {"enable_thinking": false, "add_vision_id": true},
	 "mm_processor_kwargs": {"min_pixels": 100, "max_pixels": 2000, "fps": 1.5},
	 "tools": [{"type": "function", "function": {"name": "f", "parameters": {"z": 1, "a": 2}}}],
	 "unknown_field": {"ignored": true}}`
	r, err := ParseChat([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case r.Model != "m", !r.Stream, !r.IncludeUsage, *r.MaxTokens != 7, *r.Temperature != 0.5, *r.TopK != 3,
		*r.Seed != 42, len(r.Stop) != 1 || r.Stop[0] != "x", !r.IgnoreEOS, r.SkipSpecial, r.MediaOrder != Authored,
		!r.ContinueFinalMessage, r.AddGenerationPrompt,
		*r.MMProcessorKwargs.MinPixels != 100, *r.MMProcessorKwargs.MaxPixels != 2000, *r.MMProcessorKwargs.FPS != 1.5:
		t.Errorf("parsed %+v", r)
	}
	if string(r.ChatTemplateKwargs) != `{"enable_thinking": false, "add_vision_id": true}` {
		t.Errorf("kwargs not kept verbatim: %s", r.ChatTemplateKwargs)
	}
	if string(r.Tools) != `[{"type": "function", "function": {"name": "f", "parameters": {"z": 1, "a": 2}}}]` {
		t.Errorf("tools not kept verbatim: %s", r.Tools)
	}
	d, err := ParseChat([]byte(`{"messages": [{"role": "user", "content": "hi"}]}`))
	if err != nil || !d.AddGenerationPrompt || !d.SkipSpecial || d.MediaOrder != "" || d.Tools != nil {
		t.Errorf("defaults: %+v, %v", d, err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		body, param string
	}{
		{`{`, ""},
		{`[]`, ""},
		{`{"messages": []}`, "messages"},
		{`{"messages": "hi"}`, "messages"},
		{`{}`, "messages"},
		{`{"messages": [{"content": "x"}]}`, "messages[0].role"},
		{`{"messages": [{"role": "wizard", "content": "x"}]}`, "messages[0].role"},
		{`{"messages": [{"role": "user"}]}`, "messages[0].content"},
		{`{"messages": [{"role": "user", "content": 5}]}`, "messages[0].content"},
		{`{"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}`, "messages[0].content[0].image_url"},
		{`{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"detail": "low"}}]}]}`, "messages[0].content[0].image_url.url"},
		{`{"messages": [{"role": "user", "content": [{"type": "text"}]}]}`, "messages[0].content[0].text"},
		{`{"messages": [{"role": "user", "content": [{"type": "hologram"}]}]}`, "messages[0].content[0].type"},
		{`{"messages": [{"role": "user", "content": [{}]}]}`, "messages[0].content[0].type"},
		{`{"messages": [{"role": "user", "content": "x", "tool_calls": []}]}`, "messages[0].tool_calls"},
		{`{"messages": [{"role": "assistant", "content": "x", "tool_calls": [{"function": {}}]}]}`, "messages[0].tool_calls[0].function.name"},
		{`{"messages": [{"role": "user", "content": "x"}], "temperature": "hot"}`, "temperature"},
		{`{"messages": [{"role": "user", "content": "x"}], "media_order": "random"}`, "media_order"},
		{`{"messages": [{"role": "user", "content": "x"}], "chat_template_kwargs": [1]}`, "chat_template_kwargs"},
		{`{"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function"}]}`, "tools[0].function.name"},
		{`{"messages": [{"role": "user", "content": "x"}], "tools": {}}`, "tools"},
		{`{"messages": [{"role": "user", "content": "x"}], "add_generation_prompt": true, "continue_final_message": true}`, "continue_final_message"},
		{`{"messages": [{"role": "user", "content": "x"}], "mm_processor_kwargs": {"max_pixels": -1}}`, "mm_processor_kwargs.max_pixels"},
		{`{"messages": [{"role": "user", "content": "x"}], "max_tokens": -1}`, "max_tokens"},
		{`{"messages": [{"role": "user", "content": "x"}], "max_tokens": 0}`, "max_tokens"},
		{`{"messages": [{"role": "user", "content": "x"}], "max_completion_tokens": 0, "max_tokens": 5}`, "max_tokens"},
		{`{"messages": [{"role": "user", "content": "x"}], "n": 0}`, "n"},
		{`{"messages": [{"role": "user", "content": "x"}], "n": 129}`, "n"},
		{`{"messages": [{"role": "user", "content": "x"}], "logit_bias": {"x": 1}}`, "logit_bias"},
		{`{"messages": [{"role": "user", "content": "x"}], "response_format": {"type": "yaml"}}`, "response_format.type"},
		{`{"messages": [{"role": "user", "content": "x"}], "response_format": {"type": "json_schema"}}`, "response_format.json_schema.schema"},
		{`{"messages": [{"role": "user", "content": "x"}], "stop": [1]}`, "stop"},
		{`{"messages": [{"role": "user", "content": "x"}], "x": ` + deep(200) + `}`, ""},
	}
	for _, tc := range tests {
		_, err := ParseChat([]byte(tc.body))
		var pe *RequestError
		if !errors.Is(err, ErrBadRequest) || !errors.As(err, &pe) || pe.Param != tc.param {
			t.Errorf("%s: err = %v, want bad request at %q", tc.body, err, tc.param)
		}
	}
}

func deep(n int) string {
	s := ""
	for range n {
		s += "["
	}
	for range n {
		s += "]"
	}
	return s
}
