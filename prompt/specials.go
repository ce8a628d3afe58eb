package prompt

import (
	"encoding/json"
	"fmt"

	"github.com/mmgate/mmgate/tokenizer"
	"github.com/mmgate/mmgate/vision/hfconfig"
)

// Tokenizer is what this package and the model families need from a
// tokenizer (the tokenizer package's *Tokenizer satisfies it).
type Tokenizer interface {
	// EncodeWith tokenizes text; added tokens in it are found, and
	// NoSpecialTokens leaves out the post-processor's special tokens
	// (tokenizers' add_special_tokens=False).
	EncodeWith(text string, o tokenizer.EncodeOptions) []uint32
	// IDToken returns the token string of id.
	IDToken(id uint32) (string, bool)
	// TokenID returns the id of the token whose text is tok.
	TokenID(tok string) (uint32, bool)
}

// EncodeChat tokenizes text as vLLM tokenizes a rendered chat prompt and
// each prompt replacement: without the post-processor's special tokens
// (add_special_tokens=False). The chat template writes the special tokens
// it wants (Gemma's <bos>); a post-processor would add them a second time,
// or add a <s> the LLaVA templates never write.
func EncodeChat(tok Tokenizer, text string) []uint32 {
	return tok.EncodeWith(text, tokenizer.EncodeOptions{NoSpecialTokens: true})
}

// Token is a special token: its id and its text.
type Token struct {
	ID   uint32
	Text string
}

// Specials are a model's multimodal special tokens. The model's family
// fills them (ReadSpecials reads the Qwen-VL style keys of config.json).
type Specials struct {
	// Pad is the placeholder token of each modality the model accepts
	// (image_token_id, video_token_id, audio_token_id). A modality without
	// a pad is not accepted.
	Pad map[Modality]Token
	// Start and End open and close each visual pad run in the final prompt
	// (vision_start_token_id, vision_end_token_id); zero Text when the
	// model has none. The prompt must hold exactly one of each per run.
	Start, End Token
	// Anchor is the text the chat template emits for one item of a
	// modality when it is not Start + Pad + End (for example Gemma 3's
	// "<start_of_image>"); nil or a missing entry means Start + Pad + End.
	Anchor map[Modality]string
	// Reserved are every media special token: text that contains one of
	// them is refused.
	Reserved []Token
	// Splits are tokens that vLLM reads as the sequence of other tokens
	// when it looks for a media item's replacement in the prompt's ids:
	// text next to a replacement can merge with its first token (Gemma 3's
	// "\n\n\n" is "\n" + "\n\n"). A replacement found from inside such a
	// token starts at it. nil when the model has none.
	Splits map[uint32][]uint32
}

// Placeholder is the text that stands for one item of modality m in the
// rendered prompt (the anchor an Expansion lays out), and the text a
// template that takes only string content is given per item.
func (s *Specials) Placeholder(m Modality) (string, bool) {
	p, ok := s.Pad[m]
	if !ok {
		return "", false
	}
	if a := s.Anchor[m]; a != "" {
		return a, true
	}
	return s.Start.Text + p.Text + s.End.Text, true
}

// ReadSpecials reads the media token ids of a model's config.json
// (top level, else text_config / thinker_config) and looks their text up
// in tok. Ids are never assumed: a missing id means the model lacks it.
func ReadSpecials(configJSON []byte, tok Tokenizer) (*Specials, error) {
	scopes, err := hfconfig.TokenScopes(configJSON)
	if err != nil {
		return nil, fmt.Errorf("prompt: %v: %w", err, ErrBadRequest)
	}
	lookup := func(key string) (Token, bool, error) {
		for _, sc := range scopes {
			raw, ok := sc[key]
			if !ok || string(raw) == "null" {
				continue
			}
			var id uint32
			if err := json.Unmarshal(raw, &id); err != nil {
				return Token{}, false, fmt.Errorf("prompt: config.json %s: %v", key, err)
			}
			text, ok := tok.IDToken(id)
			if !ok {
				return Token{}, false, fmt.Errorf("prompt: config.json %s = %d is not in the tokenizer", key, id)
			}
			return Token{ID: id, Text: text}, true, nil
		}
		return Token{}, false, nil
	}
	s := &Specials{Pad: map[Modality]Token{}}
	for _, k := range []struct {
		key string
		m   Modality
	}{{"image_token_id", Image}, {"video_token_id", Video}, {"audio_token_id", Audio}} {
		t, ok, err := lookup(k.key)
		if err != nil {
			return nil, err
		}
		if ok {
			s.Pad[k.m] = t
			s.Reserved = append(s.Reserved, t)
		}
	}
	for _, k := range []struct {
		key string
		dst *Token
	}{{"vision_start_token_id", &s.Start}, {"vision_end_token_id", &s.End}, {"vision_token_id", nil}, {"audio_start_token_id", nil}, {"audio_end_token_id", nil}} {
		t, ok, err := lookup(k.key)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if k.dst != nil {
			*k.dst = t
		}
		s.Reserved = append(s.Reserved, t)
	}
	return s, nil
}
