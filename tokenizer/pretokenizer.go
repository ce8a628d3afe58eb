package tokenizer

import (
	"encoding/json"
	"fmt"

	"github.com/dlclark/regexp2"
)

// This file answers: how is a normalized piece of text split into words? As
// tokenizers' pre-tokenizers Split, ByteLevel, Metaspace and Sequence do.

// piece is a piece of normalized text and whether it begins where the input
// text begins (tokenizers' offsets_original().0 == 0, which Metaspace's
// "first" scheme reads).
type piece struct {
	text    string
	atStart bool
}

// preTokenizer appends the words of s to dst. Empty words are never
// appended.
type preTokenizer interface {
	split(dst []piece, s piece) []piece
}

// Split behaviours (tokenizers' SplitDelimiterBehavior).
const (
	behRemoved = iota
	behIsolated
	behMergedWithPrevious
	behMergedWithNext
	behContiguous
)

// splitPre is the Split pre-tokenizer.
type splitPre struct {
	literal  string
	re       *regexp2.Regexp
	scanner  *wordScanner // non-nil when the pattern has a hand-written matcher
	behavior int
	invert   bool
}

func (p *splitPre) spans(dst []span, s string) []span {
	switch {
	case p.scanner != nil:
		if s == "" {
			return append(dst, span{0, 0, false})
		}
		for i := 0; i < len(s); {
			j := p.scanner.next(s, i)
			dst = append(dst, span{i, j, true})
			i = j
		}
		return dst
	case p.re != nil:
		return regexSpans(dst, p.re, s)
	}
	return literalSpans(dst, p.literal, s)
}

func (p *splitPre) split(dst []piece, w piece) []piece {
	s := w.text
	spans := p.spans(make([]span, 0, 8), s)
	if p.invert {
		for i := range spans {
			spans[i].match = !spans[i].match
		}
	}
	out := spans[:0]
	switch p.behavior {
	case behIsolated:
		out = spans
	case behRemoved:
		for _, sp := range spans {
			if !sp.match {
				out = append(out, sp)
			}
		}
	case behContiguous:
		prev := false
		for _, sp := range spans {
			if len(out) > 0 && sp.match == prev {
				out[len(out)-1].end = sp.end
			} else {
				out = append(out, sp)
			}
			prev = sp.match
		}
	case behMergedWithPrevious:
		prev := false
		for _, sp := range spans {
			if len(out) > 0 && sp.match && !prev {
				out[len(out)-1].end = sp.end
			} else {
				out = append(out, sp)
			}
			prev = sp.match
		}
	case behMergedWithNext:
		// Walk backwards: a match joins the piece after it.
		rev := make([]span, 0, len(spans))
		prev := false
		for i := len(spans) - 1; i >= 0; i-- {
			sp := spans[i]
			if len(rev) > 0 && sp.match && !prev {
				rev[len(rev)-1].start = sp.start
			} else {
				rev = append(rev, sp)
			}
			prev = sp.match
		}
		for i := len(rev) - 1; i >= 0; i-- {
			out = append(out, rev[i])
		}
	}
	for _, sp := range out {
		if sp.end > sp.start {
			dst = append(dst, piece{s[sp.start:sp.end], w.atStart && sp.start == 0})
		}
	}
	return dst
}

// gpt2Pattern is the split pattern of the ByteLevel pre-tokenizer.
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// byteLevelPre is the ByteLevel pre-tokenizer. The mapping of bytes to
// characters itself happens in the model, which then works on bytes.
type byteLevelPre struct {
	addPrefixSpace bool
	re             *splitPre // the GPT-2 split when use_regex
}

func (p *byteLevelPre) split(dst []piece, w piece) []piece {
	if w.text == "" {
		return dst
	}
	// A prepended space keeps the piece's place in the input, as
	// NormalizedString::prepend does.
	if p.addPrefixSpace && w.text[0] != ' ' {
		w.text = " " + w.text
	}
	if p.re != nil {
		return p.re.split(dst, w)
	}
	return append(dst, w)
}

type preSequence []preTokenizer

func (q preSequence) split(dst []piece, s piece) []piece {
	cur := []piece{s}
	var next []piece
	for _, p := range q {
		next = next[:0]
		for _, w := range cur {
			next = p.split(next, w)
		}
		cur, next = next, cur
	}
	for _, w := range cur {
		if w.text != "" {
			dst = append(dst, w)
		}
	}
	return dst
}

// parsePreTokenizer builds a pre-tokenizer from its JSON; null gives nil.
// byteLevel reports whether a ByteLevel pre-tokenizer is present (it must be
// the last step: the model then works on bytes).
func parsePreTokenizer(raw json.RawMessage) (p preTokenizer, byteLevel bool, err error) {
	if isNull(raw) {
		return nil, false, nil
	}
	var h struct {
		Type           string            `json:"type"`
		Pretokenizers  []json.RawMessage `json:"pretokenizers"`
		Pattern        json.RawMessage   `json:"pattern"`
		Behavior       string            `json:"behavior"`
		Invert         bool              `json:"invert"`
		AddPrefixSpace bool              `json:"add_prefix_space"`
		UseRegex       *bool             `json:"use_regex"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, false, fmt.Errorf("pre_tokenizer: %w: %v", ErrBadInput, err)
	}
	switch h.Type {
	case "Split":
		sp, err := newSplit(h.Pattern, h.Behavior, h.Invert)
		if err != nil {
			return nil, false, err
		}
		return sp, false, nil
	case "ByteLevel":
		if err := checkByteLevel(raw); err != nil {
			return nil, false, fmt.Errorf("pre_tokenizer %w", err)
		}
		b := &byteLevelPre{addPrefixSpace: h.AddPrefixSpace}
		if h.UseRegex == nil || *h.UseRegex {
			re, err := compileRegex(gpt2Pattern)
			if err != nil {
				return nil, false, err
			}
			b.re = &splitPre{re: re, behavior: behIsolated}
		}
		return b, true, nil
	case "Metaspace":
		m, err := parseMetaspace(raw)
		if err != nil {
			return nil, false, fmt.Errorf("pre_tokenizer %w", err)
		}
		return m, false, nil
	case "Sequence":
		var q preSequence
		for i, r := range h.Pretokenizers {
			p, bl, err := parsePreTokenizer(r)
			if err != nil {
				return nil, false, err
			}
			if byteLevel {
				return nil, false, fmt.Errorf("pre_tokenizer: %w: a step after ByteLevel", ErrUnsupported)
			}
			if bl && i != len(h.Pretokenizers)-1 {
				return nil, false, fmt.Errorf("pre_tokenizer: %w: a step after ByteLevel", ErrUnsupported)
			}
			byteLevel = byteLevel || bl
			if p != nil {
				q = append(q, p)
			}
		}
		return q, byteLevel, nil
	}
	return nil, false, fmt.Errorf("pre_tokenizer %q: %w", h.Type, ErrUnsupported)
}

// checkByteLevel refuses a ByteLevel step without add_prefix_space or
// trim_offsets, as tokenizers does (only use_regex has a default).
func checkByteLevel(raw json.RawMessage) error {
	var h struct {
		AddPrefixSpace *bool `json:"add_prefix_space"`
		TrimOffsets    *bool `json:"trim_offsets"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return fmt.Errorf("ByteLevel: %w: %v", ErrBadInput, err)
	}
	if h.AddPrefixSpace == nil || h.TrimOffsets == nil {
		return fmt.Errorf("ByteLevel: %w: add_prefix_space and trim_offsets are required", ErrBadInput)
	}
	return nil
}

func newSplit(pattern json.RawMessage, behavior string, invert bool) (*splitPre, error) {
	sp := &splitPre{invert: invert}
	switch behavior {
	case "Removed":
		sp.behavior = behRemoved
	case "Isolated":
		sp.behavior = behIsolated
	case "MergedWithPrevious":
		sp.behavior = behMergedWithPrevious
	case "MergedWithNext":
		sp.behavior = behMergedWithNext
	case "Contiguous":
		sp.behavior = behContiguous
	default:
		return nil, fmt.Errorf("pre_tokenizer Split: behavior %q: %w", behavior, ErrUnsupported)
	}
	var p struct {
		Regex *string `json:"Regex"`
	}
	_ = json.Unmarshal(pattern, &p)
	if p.Regex != nil {
		switch *p.Regex {
		case patternQwen:
			sp.scanner = &wordScanner{maxDigits: 1}
		case patternLlama3:
			sp.scanner = &wordScanner{maxDigits: 3}
		}
	}
	lit, re, err := parsePattern(pattern)
	if err != nil {
		return nil, fmt.Errorf("pre_tokenizer Split: %w", err)
	}
	sp.literal, sp.re = lit, re
	return sp, nil
}
