package respparse

import (
	"strings"
	"testing"
)

// feedAll feeds text in pieces of n bytes (0: whole) and merges the deltas.
func feedAll(p *Parser, text string, n int) Delta {
	var out Delta
	add := func(d Delta) {
		out.Content += d.Content
		out.Reasoning += d.Reasoning
		out.ToolCalls = append(out.ToolCalls, d.ToolCalls...)
	}
	if n == 0 {
		n = len(text) + 1
	}
	for i := 0; i < len(text); i += n {
		add(p.Feed(text[i:min(i+n, len(text))]))
	}
	add(p.Finish())
	return out
}

func TestToolCallsAndReasoning(t *testing.T) {
	cases := []struct {
		name      string
		o         Options
		text      string
		content   string
		reasoning string
		calls     []string // name + " " + arguments
	}{
		{"plain", Options{Tools: true}, "Hello, world.", "Hello, world.", "", nil},
		{"one call", Options{Tools: true}, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"c\"}}\n</tool_call>",
			"", "", []string{`get_weather {"city":"Paris","unit":"c"}`}},
		{"text around and two calls", Options{Tools: true},
			"Let me check.\n<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": \"{\\\"x\\\": 1}\"}\n</tool_call>\nDone.",
			"Let me check.\nDone.", "", []string{`a {}`, `b {"x": 1}`}},
		{"malformed json stays text", Options{Tools: true}, "<tool_call>{\"name\": oops}</tool_call>",
			"<tool_call>{\"name\": oops}</tool_call>", "", nil},
		{"unclosed block stays text", Options{Tools: true}, "x <tool_call>{\"name\": \"a\"",
			"x <tool_call>{\"name\": \"a\"", "", nil},
		{"tools off", Options{}, "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>",
			"<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>", "", nil},
		{"one call only", Options{Tools: true, MaxToolCalls: 1},
			"<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call><tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>",
			"<tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>", "", []string{`a {}`}},
		{"reasoning then answer", Options{Reasoning: true}, "<think>\nHmm, 2+2.\n</think>\n\nIt is 4.", "It is 4.", "\nHmm, 2+2.\n", nil},
		{"started in reasoning", Options{Reasoning: true, StartInReasoning: true}, "thinking</think>answer", "answer", "thinking", nil},
		{"no think tag", Options{Reasoning: true}, "Just an answer <think> later", "Just an answer <think> later", "", nil},
		{"reasoning and call", Options{Reasoning: true, Tools: true},
			"<think>need a tool</think>\n<tool_call>{\"name\": \"f\", \"arguments\": {\"q\": \"é\"}}</tool_call>",
			"", "need a tool", []string{`f {"q":"é"}`}},
		{"near miss tag", Options{Tools: true}, "a <tool_cal b", "a <tool_cal b", "", nil},
	}
	for _, c := range cases {
		for _, n := range []int{0, 1, 3, 7} {
			p := New(qwen, c.o)
			got := feedAll(p, c.text, n)
			var calls []string
			for i, tc := range got.ToolCalls {
				calls = append(calls, tc.Name+" "+tc.Arguments)
				if tc.Index != i || !strings.HasPrefix(tc.ID, "call_") {
					t.Errorf("%s/%d: call %d has index %d id %q", c.name, n, i, tc.Index, tc.ID)
				}
			}
			if got.Content != c.content || got.Reasoning != c.reasoning || strings.Join(calls, "|") != strings.Join(c.calls, "|") {
				t.Errorf("%s (pieces of %d):\ncontent %q want %q\nreasoning %q want %q\ncalls %q want %q",
					c.name, n, got.Content, c.content, got.Reasoning, c.reasoning, calls, c.calls)
			}
		}
	}
}

func FuzzParser(f *testing.F) {
	f.Add("<think>a</think>b<tool_call>{\"name\":\"x\",\"arguments\":{}}</tool_call>c", 3)
	f.Add("<tool_call>{bad</tool_call>", 1)
	f.Fuzz(func(t *testing.T, text string, n int) {
		if n <= 0 || n > 64 {
			n = 5
		}
		// With every extraction off, the output is the input.
		p := New(qwen, Options{})
		if got := feedAll(p, text, n); got.Content != text || got.Reasoning != "" || len(got.ToolCalls) != 0 {
			t.Fatalf("passthrough changed %q into %+v", text, got)
		}
		// With everything on, nothing panics and no text is invented.
		p = New(qwen, Options{Tools: true, Reasoning: true})
		got := feedAll(p, text, n)
		if len(got.Content)+len(got.Reasoning) > len(text) {
			t.Fatalf("more text out than in: %q → %+v", text, got)
		}
	})
}
