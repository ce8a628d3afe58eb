package prompt

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mmgate/mmgate/chattemplate"
	"github.com/mmgate/mmgate/tokenizer"
)

// fakeTokenizer encodes special tokens as their ids and every other byte
// as its value: enough to test placeholder handling without a vocabulary.
type fakeTokenizer struct {
	specials map[string]uint32
	texts    map[uint32]string
	order    []string // longest first
}

func newFakeTokenizer() *fakeTokenizer {
	f := &fakeTokenizer{specials: map[string]uint32{}, texts: map[uint32]string{}}
	for id, s := range map[uint32]string{
		151643: "<|endoftext|>", 151644: "<|im_start|>", 151645: "<|im_end|>",
		151652: "<|vision_start|>", 151653: "<|vision_end|>", 151654: "<|vision_pad|>",
		151655: "<|image_pad|>", 151656: "<|video_pad|>",
	} {
		f.specials[s] = id
		f.texts[id] = s
		f.order = append(f.order, s)
	}
	sort.Slice(f.order, func(i, j int) bool { return len(f.order[i]) > len(f.order[j]) })
	return f
}

func (f *fakeTokenizer) EncodeWith(text string, _ tokenizer.EncodeOptions) []uint32 {
	var ids []uint32
	for len(text) > 0 {
		matched := false
		for _, s := range f.order {
			if strings.HasPrefix(text, s) {
				ids = append(ids, f.specials[s])
				text = text[len(s):]
				matched = true
				break
			}
		}
		if !matched {
			ids = append(ids, uint32(text[0]))
			text = text[1:]
		}
	}
	return ids
}

func (f *fakeTokenizer) IDToken(id uint32) (string, bool) {
	s, ok := f.texts[id]
	return s, ok
}

func (f *fakeTokenizer) TokenID(tok string) (uint32, bool) {
	id, ok := f.specials[tok]
	return id, ok
}

const qwen3Config = `{"model_type": "qwen3_vl", "image_token_id": 151655, "video_token_id": 151656,
 "vision_start_token_id": 151652, "vision_end_token_id": 151653, "text_config": {"eos_token_id": 151645}}`

const qwen25Config = `{"model_type": "qwen2_5_vl", "image_token_id": 151655, "video_token_id": 151656,
 "vision_start_token_id": 151652, "vision_end_token_id": 151653, "vision_token_id": 151654}`

func fmtScalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "null"
	default:
		return strings.TrimSpace(strings.Trim(fmtAny(x), " "))
	}
}

func fmtAny(v any) string { return fmt.Sprint(v) }

func compileString(src string) (*chattemplate.Template, error) {
	return chattemplate.Compile(src, chattemplate.Options{})
}
