package tokenizer

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// This file answers: how does the Metaspace pre-tokenizer (and decoder) of
// SentencePiece-style tokenizers treat spaces? Each space becomes the
// replacement character (▁), one is prepended to a piece according to the
// prepend scheme, and the piece may be cut before every replacement
// character; the decoder turns them back into spaces.

// Prepend schemes of Metaspace.
const (
	prependAlways = iota // every piece that does not start with the replacement
	prependFirst         // only a piece that begins where the input begins
	prependNever
)

// metaspace is tokenizers' Metaspace, as a pre-tokenizer (split) and as a
// decoder step (decoder.go).
type metaspace struct {
	repl   rune
	str    string // repl as text
	scheme int
	cut    bool // split: cut the piece before every replacement character
}

// parseMetaspace reads a Metaspace pre-tokenizer or decoder as tokenizers
// 0.23 deserializes it: replacement is required, prepend_scheme defaults to
// "always", split to true, and add_prefix_space false is only accepted with
// the "never" scheme (which it then means).
func parseMetaspace(raw json.RawMessage) (*metaspace, error) {
	var h struct {
		Replacement    *string `json:"replacement"`
		AddPrefixSpace *bool   `json:"add_prefix_space"`
		PrependScheme  *string `json:"prepend_scheme"`
		Split          *bool   `json:"split"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("Metaspace: %w: %v", ErrBadInput, err)
	}
	if h.Replacement == nil || utf8.RuneCountInString(*h.Replacement) != 1 {
		return nil, fmt.Errorf("Metaspace: %w: replacement must be one character", ErrBadInput)
	}
	m := &metaspace{str: *h.Replacement, cut: h.Split == nil || *h.Split}
	m.repl, _ = utf8.DecodeRuneInString(m.str)
	scheme := "always"
	if h.PrependScheme != nil {
		scheme = *h.PrependScheme
	}
	// The names in the order of the prepend constants.
	if m.scheme = slices.Index([]string{"always", "first", "never"}, scheme); m.scheme < 0 {
		return nil, fmt.Errorf("Metaspace: %w: prepend_scheme %q", ErrBadInput, scheme)
	}
	if h.AddPrefixSpace != nil && !*h.AddPrefixSpace {
		if m.scheme != prependNever {
			return nil, fmt.Errorf("Metaspace: %w: add_prefix_space false with prepend_scheme %q", ErrBadInput, scheme)
		}
	}
	return m, nil
}

func (m *metaspace) split(dst []piece, w piece) []piece {
	s := strings.ReplaceAll(w.text, " ", m.str)
	if !strings.HasPrefix(s, m.str) {
		if m.scheme == prependAlways || (m.scheme == prependFirst && w.atStart) {
			s = m.str + s
		}
	}
	if !m.cut {
		return append(dst, piece{s, w.atStart})
	}
	// Split with MergedWithNext on the replacement: a cut before each one.
	for start := 0; start < len(s); {
		end := len(s)
		if i := strings.Index(s[start+1:], m.str); i >= 0 {
			end = start + 1 + i
		}
		dst = append(dst, piece{s[start:end], w.atStart && start == 0})
		start = end
	}
	return dst
}
