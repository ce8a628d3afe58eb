package chattemplate

import (
	"errors"
	"os"
	"testing"
	"time"
)

func TestAnalysis(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cfg, err := readTokenizerConfig("testdata/qwen3_tokenizer_config.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		src          string
		tools, parts bool
	}{
		{"qwen2-vl", read("qwen2-vl.jinja"), false, true},
		{"qwen3-vl-instruct", read("qwen3-vl-instruct.jinja"), true, true},
		{"qwen3", cfg.defaultTemplate, true, false},
		{"tools in a string only", `{{ 'tools' }}{{ "no tools here" }}`, false, false},
		{"tools attribute only", `{{ message.tools }}`, false, false},
		{"tools in text", `tools {{ x }}`, false, false},
		{"tools test", `{% if tools is defined %}x{% endif %}`, true, false},
		{"alias loop", `{% for m in messages %}{% set c = m['content'] %}{% for p in c %}{{ p.text }}{% endfor %}{% endfor %}`, false, true},
		{"loop over messages only", `{% for m in messages %}{{ m.content }}{% endfor %}`, false, false},
		{"loop with filter", `{%- for p in message.content if p.type == 'text' -%}{{ p.text }}{%- endfor %}`, false, true},
		{"loop over filtered content", `{% for c in message['content'] | selectattr('type', 'equalto', 'image') %}x{% endfor %}`, false, true},
		{"alias of filtered content", `{% set c = m.content | list %}{% for p in c %}{{ p }}{% endfor %}`, false, true},
		{"filter in a string", `{% for c in messages | map(attribute='x|content') %}{% endfor %}`, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tm, err := Compile(tc.src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tm.MentionsTools() != tc.tools || tm.IteratesContentParts() != tc.parts {
				t.Errorf("tools=%v parts=%v, want %v %v", tm.MentionsTools(), tm.IteratesContentParts(), tc.tools, tc.parts)
			}
		})
	}
}

func TestSourceNormalization(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{"a\n", "a"},
		{"a\n\n", "a\n"},
		{"a\r\nb\r\n", "a\nb"},
		{"{% if true %}\r\nx{% endif %}", "x"},
		{"  {% if true %}\nx\n  {% endif %}\ny", "x\ny"},
		{`{{ "| tojson" }}`, "| tojson"},
		{`{{ {"a": 1.0, "b": "<&>"} | tojson }}`, `{"a": 1.0, "b": "<&>"}`},
	}
	for _, tc := range tests {
		tm, err := Compile(tc.src, Options{})
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		got, err := tm.Render(Input{})
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		if got != tc.want {
			t.Errorf("%q renders %q, want %q", tc.src, got, tc.want)
		}
	}
	for _, src := range []string{"{%+ if x %}{% endif %}", "{% if x +%}{% endif %}", "{% raw %}{{ x }}{% endraw %}", "{{ x "} {
		if _, err := Compile(src, Options{}); !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrBadTemplate) {
			t.Errorf("%q: err = %v, want unsupported/bad template", src, err)
		}
	}
}

func TestPyFloat(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {1, "1.0"}, {-2.5, "-2.5"}, {0.1, "0.1"}, {1e16, "1e+16"}, {1e15, "1000000000000000.0"},
		{123456789012345678, "1.2345678901234568e+17"}, {0.0001, "0.0001"}, {0.00001, "1e-05"},
		{1.5e300, "1.5e+300"}, {2e-7, "2e-07"}, {1234567, "1234567.0"}, {9999999999999998, "9999999999999998.0"},
	}
	for _, tc := range tests {
		if got := pyFloatJSON(tc.f); got != tc.want {
			t.Errorf("pyFloatJSON(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestStrftime(t *testing.T) {
	tm := time.Date(2026, 3, 7, 14, 5, 9, 0, time.UTC)
	tests := []struct{ format, want string }{
		{"%Y-%m-%d", "2026-03-07"},
		{"%d %b %Y", "07 Mar 2026"},
		{"%A, %B %d, %Y %H:%M:%S %p %I", "Saturday, March 07, 2026 14:05:09 PM 02"},
		{"%j %y %% %Q", "066 26 % %Q"},
	}
	for _, tc := range tests {
		if got := strftime(tm, tc.format); got != tc.want {
			t.Errorf("strftime(%q) = %q, want %q", tc.format, got, tc.want)
		}
	}
	tpl, err := Compile(`{{ strftime_now("%d %B %Y") }}`, Options{Now: func() time.Time { return tm }})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tpl.Render(Input{}); err != nil || got != "07 March 2026" {
		t.Errorf("strftime_now = %q, %v", got, err)
	}
}

func TestRenderErrors(t *testing.T) {
	tm, err := Compile(`{{ messages[0].content }}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []Object{{{"role", "user"}, {"content", "hi"}}}
	tests := []struct {
		name string
		in   Input
	}{
		{"both continue and generation prompt", Input{Messages: msgs, AddGenerationPrompt: true, ContinueFinalMessage: true}},
		{"kwarg redefines messages", Input{Messages: msgs, Kwargs: Object{{"messages", "x"}}}},
		{"bad tools json", Input{Messages: msgs, Tools: []byte("[")}},
		{"unsupported value", Input{Messages: msgs, Kwargs: Object{{"x", struct{}{}}}}},
		{"continue without messages", Input{ContinueFinalMessage: true}},
	}
	for _, tc := range tests {
		if _, err := tm.Render(tc.in); !errors.Is(err, ErrBadInput) {
			t.Errorf("%s: err = %v, want ErrBadInput", tc.name, err)
		}
	}
}

// Generation blocks become plain blocks with the same whitespace modifiers;
// a tag that only names generation inside a string is left alone.
func TestRewriteGeneration(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{% generation %}x{% endgeneration %}`, `{% if true %}x{% endif %}`},
		{`{%- generation -%}x{%- endgeneration %}`, `{%- if true -%}x{%- endif %}`},
		{`{{ 'generation' }}{% set generation = 1 %}`, `{{ 'generation' }}{% set generation = 1 %}`},
	} {
		x := newSyntax()
		src, tags, err := x.normalizeSource(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := x.rewriteTags(src, tags); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.in, got, tc.want)
		}
	}
}
