package prompt

import (
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/openai"
)

func TestContentHash(t *testing.T) {
	// Vectors from the b3sum tool: b3sum of the data, then b3sum of that
	// hex string.
	for _, tc := range []struct{ data, want string }{
		{"", "dba5865c0d91b17958e4d2cac98c338f85cbbda07b71a020ab16c391b5e7af4b"},
		{"hello world", "2ee12b1d72231fef5c92252a955a167ea1bdf3d1112cd1ab30b4d01f1dac010a"},
	} {
		h := ContentHash([]byte(tc.data))
		if got := hex.EncodeToString(h[:]); got != tc.want {
			t.Errorf("ContentHash(%q) = %s, want %s", tc.data, got, tc.want)
		}
	}
}

func TestTimestamps(t *testing.T) {
	// Expected strings from Python's '{:.1f}'.format (Debian python3).
	for v, want := range map[float64]string{0.25: "0.2", 0.75: "0.8", 1.25: "1.2", 2.25: "2.2", 0.05: "0.1", 0.15: "0.1", 1.45: "1.4", 3.35: "3.4", 1.625: "1.6"} {
		if got := TimestampText(v); got != "<"+want+" seconds>" {
			t.Errorf("TimestampText(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestRenderExpand(t *testing.T) {
	sp := mustSpecials(t, qwen3Config)
	tok := newFakeTokenizer()
	tm := mustTemplate(t, "qwen3-vl-instruct.jinja")
	body := `{"messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"},
	  {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
	  {"type": "video_url", "video_url": {"url": "https://x/v.mp4"}},
	  {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAB"}}]}]}`
	req, err := openai.ParseChat([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Build(req, Options{Specials: sp, EnableVideo: true})
	if err != nil {
		t.Fatal(err)
	}
	// Two temporal groups (frames 0, 16 and 31, 47 at 24 fps) of 6 pads.
	groups := []VideoGroup{{Seconds: 8.0 / 24, Tokens: 6}, {Seconds: 39.0 / 24, Tokens: 6}}
	exp := []Expansion{{Tokens: 3}, {Groups: groups}, {Tokens: 2}}
	res, err := Render(tm, tok, sp, plan, exp)
	if err != nil {
		t.Fatal(err)
	}
	wantText := "<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|><|vision_start|><|video_pad|><|vision_end|><|vision_start|><|image_pad|><|vision_end|>Hi<|im_end|>\n<|im_start|>assistant\n"
	if res.Text != wantText {
		t.Errorf("text = %q", res.Text)
	}
	I, V := "<|vision_start|>"+strings.Repeat("<|image_pad|>", 3)+"<|vision_end|>", ""
	for _, g := range []string{"0.3", "1.6"} {
		V += "<" + g + " seconds><|vision_start|>" + strings.Repeat("<|video_pad|>", 6) + "<|vision_end|>"
	}
	I2 := "<|vision_start|>" + strings.Repeat("<|image_pad|>", 2) + "<|vision_end|>"
	wantIDs := EncodeChat(tok, "<|im_start|>user\n"+I+V+I2+"Hi<|im_end|>\n<|im_start|>assistant\n")
	if !reflect.DeepEqual(res.IDs, wantIDs) {
		t.Errorf("ids = %v\nwant  %v", res.IDs, wantIDs)
	}
	// Offsets: "<|im_start|>" + "user\n" (5 bytes) + vision_start = 7.
	off := 7
	want := []Placeholder{{Image, 0, off, 3}}
	off += 3 + 1 + len("<0.3 seconds>") + 1
	want = append(want, Placeholder{Video, 1, off, 6})
	off += 6 + 1 + len("<1.6 seconds>") + 1
	want = append(want, Placeholder{Video, 1, off, 6})
	off += 6 + 1 + 1
	want = append(want, Placeholder{Image, 2, off, 2})
	if !reflect.DeepEqual(res.Placeholders, want) {
		t.Errorf("placeholders = %v\nwant %v", res.Placeholders, want)
	}
	// Every range is a maximal run of its pad token.
	for _, p := range res.Placeholders {
		pad := sp.Pad[p.Modality].ID
		for i := p.Offset; i < p.Offset+p.Length; i++ {
			if res.IDs[i] != pad {
				t.Fatalf("range %v holds %d", p, res.IDs[i])
			}
		}
		if res.IDs[p.Offset-1] == pad || res.IDs[p.Offset+p.Length] == pad {
			t.Errorf("range %v is not maximal", p)
		}
	}
}

func TestAnchorMismatch(t *testing.T) {
	sp := mustSpecials(t, qwen3Config)
	tok := newFakeTokenizer()
	tm := mustTemplate(t, "qwen3-vl-instruct.jinja")
	tests := []struct{ name, body string }{
		// The Qwen3-VL template renders no media of assistant messages.
		{"image in assistant message", `{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": [{"type": "image_url", "image_url": "data:,x"}]}]}`},
		{"pad inside tools", `{"messages": [{"role": "user", "content": "a"}], "tools": [{"type": "function", "function": {"name": "<|image_pad|>"}}]}`},
		{"vision start inside tool arguments", `{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": "{\"x\": \"<|vision_start|>\"}"}}]}]}`},
	}
	for _, tc := range tests {
		req, err := openai.ParseChat([]byte(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		plan, err := Build(req, Options{Specials: sp})
		if err != nil {
			t.Fatal(err)
		}
		exp := make([]Expansion, len(plan.Media))
		for i := range exp {
			exp[i].Tokens = 4
		}
		if _, err := Render(tm, tok, sp, plan, exp); !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "the prompt has") {
			t.Errorf("%s: err = %v, want ErrBadRequest", tc.name, err)
		}
	}
}

func TestStringContentTemplate(t *testing.T) {
	// A text-only template (no loop over content parts) gets flattened
	// content: placeholders first, then the texts.
	sp := mustSpecials(t, qwen25Config)
	tok := newFakeTokenizer()
	tm, err := compileString(`{% for m in messages %}<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{% endfor %}`)
	if err != nil {
		t.Fatal(err)
	}
	if tm.IteratesContentParts() {
		t.Fatal("template must be detected as string-only")
	}
	req, _ := openai.ParseChat([]byte(`{"messages": [{"role": "user", "content": [{"type": "text", "text": "What is it?"}, {"type": "image_url", "image_url": "data:,x"}]}]}`))
	plan, err := Build(req, Options{Specials: sp, StringContent: !tm.IteratesContentParts()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Render(tm, tok, sp, plan, []Expansion{{Tokens: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>\nWhat is it?<|im_end|>\n"; res.Text != want {
		t.Errorf("text = %q, want %q", res.Text, want)
	}
	if len(res.Placeholders) != 1 || res.Placeholders[0].Length != 2 {
		t.Errorf("placeholders = %v", res.Placeholders)
	}
}

func TestQwen25VideoAndBytes(t *testing.T) {
	sp := mustSpecials(t, qwen25Config)
	tok := newFakeTokenizer()
	tm := mustTemplate(t, "qwen2-vl.jinja")
	req, err := openai.ParseChat([]byte(`{"messages": [{"role": "user", "content": [{"type": "text", "text": "Go"},
	  {"type": "video_url", "video_url": {"url": "data:video/mp4;base64,AAEC"}},
	  {"type": "image_url", "image_url": "data:image/png;base64,aGVsbG8="}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Build(req, Options{Specials: sp, EnableVideo: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Render(tm, tok, sp, plan, []Expansion{{Tokens: 5}, {Tokens: 2}})
	if err != nil {
		t.Fatal(err)
	}
	pre := len(EncodeChat(tok, "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n<|vision_start|>"))
	want := []Placeholder{{Video, 0, pre, 5}, {Image, 1, pre + 5 + 2, 2}}
	if !reflect.DeepEqual(res.Placeholders, want) {
		t.Errorf("placeholders = %v, want %v", res.Placeholders, want)
	}
	if s := (MediaItem{URL: "HTTPS://x/y"}).Scheme(); s != "https" {
		t.Errorf("scheme %q", s)
	}
}
