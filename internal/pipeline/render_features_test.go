package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tokenizer"
)

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// qwen3 is the Qwen3-VL fixture's tokenizer and specials.
func qwen3(t *testing.T) (*tokenizer.Tokenizer, *prompt.Specials) {
	t.Helper()
	a := fixtureRenderer(t, 0).assets
	return a.Tokenizer, a.Specials
}

// laidOut tokenizes text, whose pads stand one per run, and lists the runs
// (all of item 0).
func laidOut(tok *tokenizer.Tokenizer, text string, pad uint32, m prompt.Modality) *prompt.Result {
	res := &prompt.Result{IDs: tok.EncodeWith(text, tokenizer.EncodeOptions{NoSpecialTokens: true})}
	for i, id := range res.IDs {
		if id == pad {
			res.Placeholders = append(res.Placeholders, prompt.Placeholder{Modality: m, Item: 0, Offset: i, Length: 1})
		}
	}
	return res
}

// TestVLLMSpan: an item's span is what replaced its anchor, in tokens
// counted independently here from the text before and through the item.
func TestVLLMSpan(t *testing.T) {
	tok, sp := qwen3(t)
	count := func(s string) int { return len(tok.EncodeWith(s, tokenizer.EncodeOptions{NoSpecialTokens: true})) }
	const head = "<|im_start|>user\n"
	image, video := sp.Pad[prompt.Image], sp.Pad[prompt.Video]
	for _, c := range []struct {
		name, before, item string
		m                  prompt.Modality
		e                  prompt.Expansion
		runs               int
	}{
		{"image: the pad run", head + "<|vision_start|>", "<|image_pad|>", prompt.Image, prompt.Expansion{Tokens: 1}, 1},
		{"timestamped video: first timestamp to last end", head,
			"<0.5 seconds><|vision_start|><|video_pad|><|vision_end|><1.5 seconds><|vision_start|><|video_pad|><|vision_end|>",
			prompt.Video, prompt.Expansion{Groups: []prompt.VideoGroup{{Seconds: 0.5, Tokens: 1}, {Seconds: 1.5, Tokens: 1}}}, 2},
		{"text layout: all of its text", head + "Look\n", "<img><|image_pad|> and <|image_pad|></img>", prompt.Image,
			prompt.Expansion{Text: "<img><|image_pad|> and <|image_pad|></img>", Runs: []int{1, 1}}, 2},
	} {
		pad := image.ID
		if c.m == prompt.Video {
			pad = video.ID
		}
		res := laidOut(tok, c.before+c.item+"<|im_end|>\n", pad, c.m)
		if len(res.Placeholders) != c.runs {
			t.Fatalf("%s: %d runs", c.name, len(res.Placeholders))
		}
		got, err := vllmSpan(res, 0, c.m, c.e, sp, tok)
		want := openai.PlaceholderRange{Offset: count(c.before), Length: count(c.item)}
		if c.e.Text == "" && len(c.e.Groups) == 0 {
			want = openai.PlaceholderRange{Offset: res.Placeholders[0].Offset, Length: 1}
		}
		if err != nil || got != want {
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, want)
		}
	}
	// " <" is one token: vLLM would not find these
	// replacements.
	text := prompt.Expansion{Text: "<img><|image_pad|></img>", Runs: []int{1}}
	if _, err := vllmSpan(laidOut(tok, head+"Look: <img><|image_pad|></img>", image.ID, prompt.Image), 0, prompt.Image, text, sp, tok); !errors.Is(err, prompt.ErrUnsupported) {
		t.Errorf("merged text before: %v, want a 400 (prompt.ErrUnsupported)", err)
	}
	res := laidOut(tok, head+"Video 1: <0.5 seconds><|vision_start|><|video_pad|><|vision_end|>", video.ID, prompt.Video)
	_, err := vllmSpan(res, 0, prompt.Video, prompt.Expansion{Groups: []prompt.VideoGroup{{Seconds: 0.5, Tokens: 1}}}, sp, tok)
	if !errors.Is(err, prompt.ErrUnsupported) {
		t.Errorf("merged timestamp: %v, want a 400 (prompt.ErrUnsupported)", err)
	}
	if _, err := vllmSpan(res, 3, prompt.Video, prompt.Expansion{}, sp, tok); !errors.Is(err, errSpan) {
		t.Errorf("an item without runs: %v", err)
	}
	if _, _, err := layoutEdges(prompt.Expansion{Text: "no pad", Runs: []int{1}}, prompt.Image, sp); !errors.Is(err, errSpan) {
		t.Errorf("a text without its pad: %v", err)
	}
}
