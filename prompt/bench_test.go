package prompt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/openai"
)

// BenchmarkParseBuildRender measures this package's own work for a
// 20-message request with tools and 4 images (the tokenizer is a trivial
// stand-in, so tokenization cost is not included).
func BenchmarkParseBuildRender(b *testing.B) {
	sp := mustSpecials(b, qwen3Config)
	tok := newFakeTokenizer()
	tm := mustTemplate(b, "qwen3-vl-instruct.jinja")
	var msgs []string
	for i := range 20 {
		switch {
		case i%5 == 0:
			msgs = append(msgs, `{"role": "user", "content": [{"type": "text", "text": "Look at this."}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}`)
		case i%2 == 0:
			msgs = append(msgs, fmt.Sprintf(`{"role": "user", "content": "Question %d about the pictures?"}`, i))
		default:
			msgs = append(msgs, `{"role": "assistant", "content": "Answer.", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "crop", "arguments": "{\"box\": [1, 2, 3, 4]}"}}]}`)
		}
	}
	body := []byte(`{"tools": [{"type": "function", "function": {"name": "crop", "parameters": {"type": "object", "properties": {"box": {"type": "array"}}}}}], "messages": [` + strings.Join(msgs, ",") + `]}`)
	b.ReportAllocs()
	for b.Loop() {
		req, err := openai.ParseChat(body)
		if err != nil {
			b.Fatal(err)
		}
		plan, err := Build(req, Options{Specials: sp})
		if err != nil {
			b.Fatal(err)
		}
		exp := make([]Expansion, len(plan.Media))
		for i := range exp {
			exp[i].Tokens = 256
		}
		if _, err := Render(tm, tok, sp, plan, exp); err != nil {
			b.Fatal(err)
		}
	}
}
