package prompt

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/mmgate/mmgate/openai"
)

// renderOne renders a one-image (and optionally one-video) user message
// with the Qwen3-VL template.
func renderOne(t *testing.T, sp *Specials, withVideo bool, exp []Expansion) (*Result, error) {
	t.Helper()
	body := `{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": "data:,a"}, {"type": "text", "text": "Hi"}]}]}`
	if withVideo {
		body = `{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": "data:,a"}, {"type": "video_url", "video_url": "data:,v"}, {"type": "text", "text": "Hi"}]}]}`
	}
	req, err := openai.ParseChat([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Build(req, Options{Specials: sp, EnableVideo: true})
	if err != nil {
		t.Fatal(err)
	}
	return Render(mustTemplate(t, "qwen3-vl-instruct.jinja"), newFakeTokenizer(), sp, plan, exp)
}

// An expansion with Text replaces the anchor; each pad in the text is one
// run, tokenized once and widened after, and the structural range spans the
// runs plus the lead.
func TestRenderTextRuns(t *testing.T) {
	sp := mustSpecials(t, qwen3Config)
	views := "\n\n<|vision_start|><|image_pad|><|vision_end|>\n\n<|vision_start|><|image_pad|><|vision_end|>\n\n"
	exp := []Expansion{{Tokens: 5, Text: views, Runs: []int{3, 2}, Lead: 1}}
	res, err := renderOne(t, sp, false, exp)
	if err != nil {
		t.Fatal(err)
	}
	tok := newFakeTokenizer()
	wide := "\n\n<|vision_start|>" + strings.Repeat("<|image_pad|>", 3) + "<|vision_end|>\n\n<|vision_start|>" +
		strings.Repeat("<|image_pad|>", 2) + "<|vision_end|>\n\n"
	want := EncodeChat(tok, "<|im_start|>user\n"+wide+"Hi<|im_end|>\n<|im_start|>assistant\n")
	if !reflect.DeepEqual(res.IDs, want) {
		t.Fatalf("ids = %v\nwant  %v", res.IDs, want)
	}
	off := 1 + len("user\n\n\n") + 1
	runs := []Placeholder{{Image, 0, off, 3}, {Image, 0, off + 3 + 1 + 2 + 1, 2}}
	if !reflect.DeepEqual(res.Placeholders, runs) {
		t.Errorf("runs = %v, want %v", res.Placeholders, runs)
	}
	if got, ok := res.Structural(0, exp[0]); !ok || got != (Placeholder{Image, 0, off - 1, 3 + 1 + 2 + 1 + 2 + 1}) {
		t.Errorf("structural = %v %v", got, ok)
	}
	if _, ok := res.Structural(1, Expansion{}); ok {
		t.Error("structural range of a missing item")
	}
	if res.Text != "<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>Hi<|im_end|>\n<|im_start|>assistant\n" {
		t.Errorf("text = %q (the template's output, before layout)", res.Text)
	}
}

// With Frame the structural range is all of the item's Text: the tokens
// before its first run and after its last, tokenized alone, are counted in.
func TestStructuralFrame(t *testing.T) {
	sp := mustSpecials(t, qwen3Config)
	views := "ab<|vision_start|><|image_pad|><|vision_end|>c<|vision_start|><|image_pad|><|vision_end|>de"
	exp := []Expansion{{Tokens: 5, Text: views, Runs: []int{3, 2}, Frame: true, Lead: 9}}
	res, err := renderOne(t, sp, false, exp)
	if err != nil {
		t.Fatal(err)
	}
	first, last := res.Placeholders[0], res.Placeholders[1]
	want := Placeholder{Image, 0, first.Offset - 3, last.Offset + last.Length + 3 - (first.Offset - 3)}
	if got, ok := res.Structural(0, exp[0]); !ok || got != want {
		t.Errorf("structural = %v, want %v", got, want)
	}
	if got := res.IDs[want.Offset : want.Offset+3]; !reflect.DeepEqual(got, []uint32{'a', 'b', sp.Start.ID}) {
		t.Errorf("range starts with %v", got)
	}
	// Without Frame the same result gives the runs plus Lead.
	plain := exp[0]
	plain.Frame = false
	if got, _ := res.Structural(0, plain); got.Offset != first.Offset-9 {
		t.Errorf("unframed structural = %v", got)
	}
}

// A modality laid out as one run per item leaves the rendered text as it
// is, without a copy (the per-request path for Qwen images).
func TestLayoutKeepsText(t *testing.T) {
	sp := mustSpecials(t, qwen3Config)
	text := "a<|vision_start|><|image_pad|><|vision_end|>b"
	media := []MediaItem{{Modality: Image}}
	got, err := layoutText(text, media, []Expansion{{Tokens: 4}}, sp)
	if err != nil || got != text || unsafe.StringData(got) != unsafe.StringData(text) {
		t.Errorf("layout copied or changed %q into %q (%v)", text, got, err)
	}
}

// The structural range of a timestamped video starts at the first
// <|vision_start|> of its groups (Lead 1) and ends with its last run.
func TestStructuralTimestampedVideo(t *testing.T) {
	sp := mustSpecials(t, qwen3Config)
	video := VideoExpansion([]float64{0.5, 1.5}, 2, 2, 4, 2)
	video.Lead = 1
	exp := []Expansion{{Tokens: 2}, video}
	res, err := renderOne(t, sp, true, exp)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Placeholders) != 3 {
		t.Fatalf("runs = %v", res.Placeholders)
	}
	first, last := res.Placeholders[1], res.Placeholders[2]
	got, ok := res.Structural(1, exp[1])
	want := Placeholder{Video, 1, first.Offset - 1, last.Offset + last.Length - first.Offset + 1}
	if !ok || got != want || res.IDs[got.Offset] != sp.Start.ID {
		t.Errorf("structural = %v, want %v starting on <|vision_start|>", got, want)
	}
	if img, _ := res.Structural(0, exp[0]); img != res.Placeholders[0] {
		t.Errorf("image structural %v, want its pad run %v", img, res.Placeholders[0])
	}
}

func TestLayoutErrors(t *testing.T) {
	sp := mustSpecials(t, qwen3Config)
	for name, e := range map[string]Expansion{
		"runs without pads": {Text: "<|vision_start|><|vision_end|>", Runs: []int{4}},
		"pads without runs": {Text: "<|vision_start|><|image_pad|><|vision_end|>"},
		"two pads one run":  {Text: "<|image_pad|><|image_pad|>", Runs: []int{4}},
	} {
		if _, err := renderOne(t, sp, false, []Expansion{e}); err == nil || !strings.Contains(err.Error(), "runs") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := renderOne(t, sp, false, []Expansion{{Text: "<|vision_start|><|image_pad|><|vision_end|>", Runs: []int{0}}}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("empty run: err = %v", err)
	}
	// A custom anchor the template never renders.
	custom := *sp
	custom.Anchor = map[Modality]string{Image: "<image>"}
	if _, err := renderOne(t, &custom, false, []Expansion{{Text: "<|image_pad|>", Runs: []int{2}}}); !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "no placeholder for this image") {
		t.Errorf("missing anchor: err = %v", err)
	}
	if ph, _ := custom.Placeholder(Image); ph != "<image>" {
		t.Errorf("Placeholder with an anchor = %q", ph)
	}
}
