package prompt

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/chattemplate"
	"github.com/mmgate/mmgate/openai"
)

func mustSpecials(t testing.TB, cfg string) *Specials {
	t.Helper()
	sp, err := ReadSpecials([]byte(cfg), newFakeTokenizer())
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func mustTemplate(t testing.TB, file string) *chattemplate.Template {
	t.Helper()
	b, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := chattemplate.Compile(string(b), chattemplate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func TestReadSpecials(t *testing.T) {
	sp := mustSpecials(t, qwen25Config)
	if sp.Pad[Image] != (Token{151655, "<|image_pad|>"}) || sp.Pad[Video] != (Token{151656, "<|video_pad|>"}) {
		t.Errorf("pads = %v", sp.Pad)
	}
	if _, ok := sp.Pad[Audio]; ok {
		t.Error("qwen2.5-vl has no audio pad")
	}
	if ph, _ := sp.Placeholder(Image); ph != "<|vision_start|><|image_pad|><|vision_end|>" {
		t.Errorf("placeholder = %q", ph)
	}
	if len(sp.Reserved) != 5 {
		t.Errorf("reserved = %v", sp.Reserved)
	}
	if _, err := ReadSpecials([]byte(`{"image_token_id": 99999999}`), newFakeTokenizer()); err == nil {
		t.Error("an id the tokenizer lacks must be an error")
	}
}

func TestBuild(t *testing.T) {
	sp := mustSpecials(t, qwen3Config)
	const img = `{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "high"}}`
	const img2 = `{"type": "image_url", "image_url": "https://example.com/a.jpg"}`
	tests := []struct {
		name     string
		body     string
		opts     Options
		media    []MediaItem
		messages string // chattemplate.Object rendering via %v
		errKind  error
		errParam string
	}{
		{
			name:     "media first",
			body:     `{"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, ` + img + `, {"type": "text", "text": "b"}, ` + img2 + `]}]}`,
			media:    []MediaItem{{Modality: Image, URL: "data:image/png;base64,AAAA", Detail: "high", Param: "messages[0].content[1]"}, {Modality: Image, URL: "https://example.com/a.jpg", Param: "messages[0].content[3]"}},
			messages: `[[{role user} {content [[{type image}] [{type image}] [{type text} {text a}] [{type text} {text b}]]}]]`,
		},
		{
			name:     "authored order per request",
			body:     `{"media_order": "authored", "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, ` + img + `]}]}`,
			media:    []MediaItem{{Modality: Image, URL: "data:image/png;base64,AAAA", Detail: "high", Param: "messages[0].content[1]"}},
			messages: `[[{role user} {content [[{type text} {text a}] [{type image}]]}]]`,
		},
		{
			name:     "authored order as server default",
			opts:     Options{MediaOrder: openai.Authored},
			body:     `{"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, ` + img + `]}]}`,
			media:    []MediaItem{{Modality: Image, URL: "data:image/png;base64,AAAA", Detail: "high", Param: "messages[0].content[1]"}},
			messages: `[[{role user} {content [[{type text} {text a}] [{type image}]]}]]`,
		},
		{
			name:     "string-content template",
			opts:     Options{StringContent: true},
			body:     `{"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, ` + img + `, {"type": "text", "text": "b"}, ` + img2 + `]}, {"role": "user", "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}]}]}`,
			media:    []MediaItem{{Modality: Image, URL: "data:image/png;base64,AAAA", Detail: "high", Param: "messages[0].content[1]"}, {Modality: Image, URL: "https://example.com/a.jpg", Param: "messages[0].content[3]"}},
			messages: "[[{role user} {content <|vision_start|><|image_pad|><|vision_end|>\n<|vision_start|><|image_pad|><|vision_end|>\na\nb}] [{role user} {content x\ny}]]",
		},
		{
			name:     "null content and tool calls",
			body:     `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"z\": 1, \"a\": [2.0]}"}}, {"id": "c2", "type": "function", "function": {"name": "g", "arguments": ""}}, {"id": "c3", "type": "function", "function": {"name": "h", "arguments": {"k": "v"}}}]}, {"role": "tool", "tool_call_id": "c1", "content": "ok"}]}`,
			media:    nil,
			messages: `[[{role user} {content hi}] [{role assistant} {content } {tool_calls [[{id c1} {type function} {function [{name f} {arguments [{z 1} {a [2.0]}]}]}] [{id c2} {type function} {function [{name g} {arguments []}]}] [{id c3} {type function} {function [{name h} {arguments [{k v}]}]}]]}] [{role tool} {content ok} {tool_call_id c1}]]`,
		},
		{name: "video refused", body: `{"messages": [{"role": "user", "content": [{"type": "video_url", "video_url": {"url": "https://x/v.mp4"}}]}]}`, errKind: ErrUnsupported, errParam: "messages[0].content[0]"},
		{name: "audio unsupported by model", body: `{"messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}]}]}`, errKind: ErrUnsupported, errParam: "messages[0].content[0]"},
		{name: "pad typed in text", body: `{"messages": [{"role": "user", "content": [{"type": "text", "text": "see <|image_pad|>"}]}]}`, errKind: ErrBadRequest, errParam: "messages[0].content[0].text"},
		{name: "vision start typed in string", body: `{"messages": [{"role": "system", "content": "<|vision_start|>"}, {"role": "user", "content": "x"}]}`, errKind: ErrBadRequest, errParam: "messages[0].content"},
		{name: "bad tool arguments", body: `{"messages": [{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": "{nope"}}]}]}`, errKind: ErrBadRequest, errParam: "messages[0].tool_calls[0].function.arguments"},
		{name: "too many", opts: Options{MaxMediaItems: 1}, body: `{"messages": [{"role": "user", "content": [` + img + `, ` + img2 + `]}]}`, errKind: ErrTooMany, errParam: "messages"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := openai.ParseChat([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			o := tc.opts
			o.Specials = sp
			p, err := Build(req, o)
			if tc.errKind != nil {
				var pe *Error
				if !errors.Is(err, tc.errKind) || !errors.As(err, &pe) || pe.Param != tc.errParam {
					t.Fatalf("err = %v, want %v at %q", err, tc.errKind, tc.errParam)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Media, tc.media) {
				t.Errorf("media = %+v\nwant %+v", p.Media, tc.media)
			}
			if got := strings.ReplaceAll(fmtMessages(p.Input.Messages), "\"", ""); got != tc.messages {
				t.Errorf("messages = %s\nwant       %s", got, tc.messages)
			}
		})
	}
}

// TestBuildTemplateKwargs: chat_template_kwargs reach the template in the
// request's key order.
func TestBuildTemplateKwargs(t *testing.T) {
	req, err := openai.ParseChat([]byte(`{"messages": [{"role": "user", "content": "hi"}], "chat_template_kwargs": {"enable_thinking": false, "add_vision_id": true}}`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(req, Options{})
	if err != nil {
		t.Fatal(err)
	}
	kw := p.Input.Kwargs
	if len(kw) != 2 || kw[0].Key != "enable_thinking" || kw[0].Value != false || kw[1].Key != "add_vision_id" {
		t.Errorf("kwargs = %v", kw)
	}
}

// fmtMessages prints objects as [{key value} …] with nested JSON values
// shown by their text.
func fmtMessages(msgs []chattemplate.Object) string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case chattemplate.Object:
			b.WriteByte('[')
			for i, f := range x {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString("{" + f.Key + " ")
				walk(f.Value)
				b.WriteByte('}')
			}
			b.WriteByte(']')
		case []chattemplate.Object:
			b.WriteByte('[')
			for i, o := range x {
				if i > 0 {
					b.WriteByte(' ')
				}
				walk(o)
			}
			b.WriteByte(']')
		case []any:
			b.WriteByte('[')
			for i, o := range x {
				if i > 0 {
					b.WriteByte(' ')
				}
				walk(o)
			}
			b.WriteByte(']')
		default:
			b.WriteString(strings.Trim(strings.TrimSpace(strings.ReplaceAll(strings.TrimSpace(fmtScalar(x)), "\n", "\n")), ""))
		}
	}
	b.WriteByte('[')
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte(' ')
		}
		walk(m)
	}
	b.WriteByte(']')
	return b.String()
}

// FuzzParse parses request bodies and builds what parses: every refusal is
// a typed error, and every accepted body is valid JSON whose messages all
// reach the template input.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}]}`))
	f.Add([]byte(`{"messages": [{"role": "assistant", "content": null, "tool_calls": [{"function": {"name": "f", "arguments": "{\"a\": 1}"}}]}], "tools": [{"function": {"name": "f"}}], "chat_template_kwargs": {"x": [1, {"y": null}]}}`))
	f.Add([]byte(`{"messages": [{"role": "user", "content": "<|image_pad|>"}], "media_order": "authored", "stop": ["a"]}`))
	sp, _ := ReadSpecials([]byte(qwen3Config), newFakeTokenizer())
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := openai.ParseChat(body)
		if err != nil {
			var re *openai.RequestError
			if !errors.As(err, &re) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatal("accepted invalid JSON")
		}
		p, err := Build(r, Options{Specials: sp, EnableVideo: true, MaxMediaItems: -1})
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("untyped build error %v", err)
			}
			return
		}
		if len(p.Input.Messages) != len(r.Messages) {
			t.Fatal("message count changed")
		}
	})
}
