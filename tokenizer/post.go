package tokenizer

import (
	"encoding/json"
	"fmt"
)

// This file answers: which ids are added around an encoded text when special
// tokens are requested? tokenizers' post-processors, for a single sequence.

// postProcessor adds special tokens around the ids of one sequence.
type postProcessor interface {
	process(ids []uint32) []uint32
}

// template is TemplateProcessing's single-sequence template (and Roberta's
// and Bert's fixed ones): ids before and after the sequence.
type template struct {
	before, after []uint32
}

func (t template) process(ids []uint32) []uint32 {
	if len(t.before) == 0 && len(t.after) == 0 {
		return ids
	}
	out := make([]uint32, 0, len(t.before)+len(ids)+len(t.after))
	out = append(out, t.before...)
	out = append(out, ids...)
	return append(out, t.after...)
}

type postSequence []postProcessor

func (q postSequence) process(ids []uint32) []uint32 {
	for _, p := range q {
		ids = p.process(ids)
	}
	return ids
}

// specialTokenIDs is a TemplateProcessing special token's ids.
type specialTokenIDs struct {
	IDs []uint32 `json:"ids"`
}

// parseTemplate reads TemplateProcessing's single-sequence template: the
// special tokens' ids before and after the one sequence.
func parseTemplate(single []json.RawMessage, special map[string]specialTokenIDs) (template, error) {
	var t template
	seen := false
	for _, piece := range single {
		var p struct {
			SpecialToken *struct {
				ID string `json:"id"`
			} `json:"SpecialToken"`
			Sequence *struct {
				ID string `json:"id"`
			} `json:"Sequence"`
		}
		if err := json.Unmarshal(piece, &p); err != nil {
			return template{}, fmt.Errorf("post_processor: %w: %v", ErrBadInput, err)
		}
		switch {
		case p.Sequence != nil:
			if seen {
				return template{}, fmt.Errorf("post_processor: %w: the sequence twice in the template", ErrUnsupported)
			}
			seen = true
		case p.SpecialToken != nil:
			st, ok := special[p.SpecialToken.ID]
			if !ok {
				return template{}, fmt.Errorf("post_processor: %w: special token %q has no ids", ErrBadInput, p.SpecialToken.ID)
			}
			if seen {
				t.after = append(t.after, st.IDs...)
			} else {
				t.before = append(t.before, st.IDs...)
			}
		default:
			return template{}, fmt.Errorf("post_processor: %w: template piece %s", ErrBadInput, piece)
		}
	}
	return t, nil
}

func parsePostProcessor(raw json.RawMessage) (postProcessor, error) {
	if isNull(raw) {
		return nil, nil
	}
	var h struct {
		Type          string                     `json:"type"`
		Processors    []json.RawMessage          `json:"processors"`
		Single        []json.RawMessage          `json:"single"`
		SpecialTokens map[string]specialTokenIDs `json:"special_tokens"`
		Sep           *[2]json.RawMessage        `json:"sep"`
		Cls           *[2]json.RawMessage        `json:"cls"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("post_processor: %w: %v", ErrBadInput, err)
	}
	switch h.Type {
	case "ByteLevel":
		if err := checkByteLevel(raw); err != nil {
			return nil, fmt.Errorf("post_processor %w", err)
		}
		return nil, nil
	case "TemplateProcessing":
		t, err := parseTemplate(h.Single, h.SpecialTokens)
		if err != nil {
			return nil, err
		}
		return t, nil
	case "RobertaProcessing", "BertProcessing":
		if h.Sep == nil || h.Cls == nil {
			return nil, fmt.Errorf("post_processor %s: %w: no sep or cls", h.Type, ErrBadInput)
		}
		var sep, cls uint32
		if json.Unmarshal(h.Sep[1], &sep) != nil || json.Unmarshal(h.Cls[1], &cls) != nil {
			return nil, fmt.Errorf("post_processor %s: %w: bad sep or cls id", h.Type, ErrBadInput)
		}
		return template{before: []uint32{cls}, after: []uint32{sep}}, nil
	case "Sequence":
		var q postSequence
		for _, r := range h.Processors {
			p, err := parsePostProcessor(r)
			if err != nil {
				return nil, err
			}
			if p != nil {
				q = append(q, p)
			}
		}
		return q, nil
	}
	return nil, fmt.Errorf("post_processor %q: %w", h.Type, ErrUnsupported)
}
