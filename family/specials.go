package family

import (
	"fmt"

	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/vision"
)

// ErrMissingToken wraps the error of a special token the model's tokenizer
// does not have.
var ErrMissingToken = fmt.Errorf("the tokenizer lacks a media token: %w", vision.ErrBadOptions)

// Tokens looks each text up in tok. A text the tokenizer does not hold as
// one token is an error wrapping ErrMissingToken: a family never assumes an
// id (a stand-in tokenizer may hold the text at another id than config.json
// says).
func Tokens(tok prompt.Tokenizer, texts ...string) ([]prompt.Token, error) {
	out := make([]prompt.Token, len(texts))
	for i, s := range texts {
		id, ok := tok.TokenID(s)
		if !ok || s == "" {
			return nil, fmt.Errorf("family: %q: %w", s, ErrMissingToken)
		}
		out[i] = prompt.Token{ID: id, Text: s}
	}
	return out, nil
}

// SpecialTexts name a model's media tokens by their text.
type SpecialTexts struct {
	// Pad is each modality's placeholder token.
	Pad map[vision.Modality]string
	// Start and End open and close each visual pad run ("" when none).
	Start, End string
	// Anchor is what the chat template renders per item when it is not
	// Start + Pad + End.
	Anchor map[vision.Modality]string
	// Reserved are further media tokens refused in user text, besides the
	// pads, Start and End.
	Reserved []string
}

// LookupSpecials builds a model's prompt.Specials from the texts, every
// token looked up in tok (Tokens).
func LookupSpecials(tok prompt.Tokenizer, t SpecialTexts) (*prompt.Specials, error) {
	sp := &prompt.Specials{Pad: map[prompt.Modality]prompt.Token{}}
	for _, m := range []vision.Modality{vision.Image, vision.Video, vision.Audio} {
		text, ok := t.Pad[m]
		if !ok {
			continue
		}
		pm := promptModality(m)
		toks, err := Tokens(tok, text)
		if err != nil {
			return nil, err
		}
		sp.Pad[pm] = toks[0]
		sp.Reserved = appendToken(sp.Reserved, toks[0])
		if a := t.Anchor[m]; a != "" {
			if sp.Anchor == nil {
				sp.Anchor = map[prompt.Modality]string{}
			}
			sp.Anchor[pm] = a
		}
	}
	for _, x := range []struct {
		text string
		dst  *prompt.Token
	}{{t.Start, &sp.Start}, {t.End, &sp.End}} {
		if x.text == "" {
			continue
		}
		toks, err := Tokens(tok, x.text)
		if err != nil {
			return nil, err
		}
		*x.dst = toks[0]
		sp.Reserved = appendToken(sp.Reserved, toks[0])
	}
	more, err := Tokens(tok, t.Reserved...)
	if err != nil {
		return nil, err
	}
	for _, r := range more {
		sp.Reserved = appendToken(sp.Reserved, r)
	}
	return sp, nil
}

// appendToken appends t unless it is already in ts.
func appendToken(ts []prompt.Token, t prompt.Token) []prompt.Token {
	for _, x := range ts {
		if x == t {
			return ts
		}
	}
	return append(ts, t)
}

// promptModality is the prompt package's value of a modality.
func promptModality(m vision.Modality) prompt.Modality {
	switch m {
	case vision.Video:
		return prompt.Video
	case vision.Audio:
		return prompt.Audio
	}
	return prompt.Image
}
