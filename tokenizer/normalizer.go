package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/dlclark/regexp2"
	"golang.org/x/text/unicode/norm"
)

// This file answers: how is each piece of text normalized before it is split
// into words? As tokenizers' normalizers, on each piece of text between added
// tokens.

// normalizer rewrites one piece of text.
type normalizer interface {
	normalize(s string) string
}

type unicodeNorm struct{ form norm.Form }

func (n unicodeNorm) normalize(s string) string {
	if isASCII(s) {
		return s // ASCII is invariant under every normalization form
	}
	return n.form.String(s)
}

// isASCII reports whether s has only ASCII bytes, eight at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// lowercase maps each character to its full lowercase mapping, as Rust's
// char::to_lowercase does (character by character: no final-sigma rule).
type lowercase struct{}

func (lowercase) normalize(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || (s[i] >= 'A' && s[i] <= 'Z') {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == 'İ' { // the one unconditional multi-character lowercase mapping
			b.WriteString("i\u0307")
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

type strip struct{ left, right bool }

func (n strip) normalize(s string) string {
	if n.left {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	if n.right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s
}

// stripAccents removes combining marks (General_Category Mark).
type stripAccents struct{}

func (stripAccents) normalize(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.M, r) {
			return -1
		}
		return r
	}, s)
}

type prepend struct{ s string }

func (n prepend) normalize(s string) string {
	if s == "" {
		return s
	}
	return n.s + s
}

type replace struct {
	literal string
	re      *regexp2.Regexp
	content string
}

func (n replace) normalize(s string) string {
	if n.re == nil {
		if n.literal == "" {
			return s
		}
		return strings.ReplaceAll(s, n.literal, n.content)
	}
	return regexReplaceAll(n.re, s, n.content)
}

type normSequence []normalizer

func (q normSequence) normalize(s string) string {
	for _, n := range q {
		s = n.normalize(s)
	}
	return s
}

// parseNormalizer builds a normalizer from its JSON; null gives nil.
func parseNormalizer(raw json.RawMessage) (normalizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	var h struct {
		Type        string            `json:"type"`
		Normalizers []json.RawMessage `json:"normalizers"`
		StripLeft   bool              `json:"strip_left"`
		StripRight  bool              `json:"strip_right"`
		Prepend     string            `json:"prepend"`
		Content     string            `json:"content"`
		Pattern     json.RawMessage   `json:"pattern"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("normalizer: %w: %v", ErrBadInput, err)
	}
	switch h.Type {
	case "NFC":
		return unicodeNorm{norm.NFC}, nil
	case "NFD":
		return unicodeNorm{norm.NFD}, nil
	case "NFKC":
		return unicodeNorm{norm.NFKC}, nil
	case "NFKD":
		return unicodeNorm{norm.NFKD}, nil
	case "Lowercase":
		return lowercase{}, nil
	case "Strip":
		return strip{h.StripLeft, h.StripRight}, nil
	case "StripAccents":
		return stripAccents{}, nil
	case "Prepend":
		return prepend{h.Prepend}, nil
	case "Replace":
		lit, re, err := parsePattern(h.Pattern)
		if err != nil {
			return nil, fmt.Errorf("normalizer Replace: %w", err)
		}
		return replace{literal: lit, re: re, content: h.Content}, nil
	case "Sequence":
		var q normSequence
		for _, r := range h.Normalizers {
			n, err := parseNormalizer(r)
			if err != nil {
				return nil, err
			}
			if n != nil {
				q = append(q, n)
			}
		}
		return q, nil
	}
	return nil, fmt.Errorf("normalizer %q: %w", h.Type, ErrUnsupported)
}

// parsePattern reads a {"String": s} or {"Regex": r} pattern. A String
// pattern is returned as a literal (re nil).
func parsePattern(raw json.RawMessage) (literal string, re *regexp2.Regexp, err error) {
	var p struct {
		String *string `json:"String"`
		Regex  *string `json:"Regex"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", nil, fmt.Errorf("pattern: %w: %v", ErrBadInput, err)
	}
	switch {
	case p.String != nil:
		return *p.String, nil, nil
	case p.Regex != nil:
		re, err := compileRegex(*p.Regex)
		return "", re, err
	}
	return "", nil, fmt.Errorf("pattern: %w: neither String nor Regex", ErrBadInput)
}

// compileRegex compiles a pattern with Oniguruma-like semantics: Unicode
// classes, backtracking, lookaround (regexp2 without its RE2 option).
func compileRegex(pat string) (*regexp2.Regexp, error) {
	re, err := regexp2.Compile(pat, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("regex %q: %w: %v", pat, ErrUnsupported, err)
	}
	return re, nil
}

func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}
