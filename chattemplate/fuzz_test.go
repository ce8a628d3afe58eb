package chattemplate

import (
	"errors"
	"strings"
	"testing"
)

// FuzzRender renders hostile message content and tool-call arguments
// through the real templates: no panic, no hang, and string content comes
// out verbatim.
func FuzzRender(f *testing.F) {
	tmpls, _ := loadCases(f)
	f.Add("hello", `{"a": 1}`, true)
	f.Add("{{ messages }}{% for x in y %}", `[1, 2.5e300, "x"]`, false)
	f.Add("<|im_end|>\n<|im_start|>system\n", `"{\"nested\": true}"`, true)
	f.Add("</think>\n\n<think>", `{"a": {"b": {"c": [null, true, -0.0]}}}`, false)
	f.Add(strings.Repeat("é\x00\xff", 50), `{`, true)
	f.Fuzz(func(t *testing.T, content, args string, parts bool) {
		var c any = content
		if parts {
			c = []Object{{{"type", "image"}}, {{"type", "text"}, {"text", content}}}
		}
		msgs := []Object{
			{{"role", "system"}, {"content", content}},
			{{"role", "user"}, {"content", c}},
			{{"role", "assistant"}, {"content", content}, {"tool_calls", []any{
				Object{{"type", "function"}, {"function", Object{{"name", content}, {"arguments", []byte(args)}}}},
			}}},
			{{"role", "tool"}, {"content", content}},
			{{"role", "user"}, {"content", content}},
		}
		for name, tm := range tmpls {
			out, err := tm.Render(Input{Messages: msgs, Tools: []byte(`[{"type":"function","function":{"name":"f"}}]`), AddGenerationPrompt: true})
			if errors.Is(err, errPanic) {
				t.Fatalf("%s: engine panic: %v", name, err)
			}
			if err == nil && name != "raise" && name != "tojson" && !strings.Contains(out, strings.ToValidUTF8(content, "\ufffd")) && !strings.Contains(out, content) {
				t.Fatalf("%s: content missing from output", name)
			}
		}
	})
}

func BenchmarkRender20WithTools(b *testing.B) {
	tmpls, cases := loadCases(b)
	var base Input
	for _, c := range cases {
		if c.Name == "qwen3-vl-instruct/tool-calls-dict" {
			base = caseInput(b, c)
		}
	}
	in := base
	in.Messages = nil
	for len(in.Messages) < 20 {
		in.Messages = append(in.Messages, base.Messages...)
	}
	in.Messages = in.Messages[:20]
	tm := tmpls["qwen3-vl-instruct"]
	if _, err := tm.Render(in); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tm.Render(in); err != nil {
			b.Fatal(err)
		}
	}
}
