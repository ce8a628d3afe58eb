package tokenizer

import (
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// This file answers: where does a regular expression (or a literal) match in
// a piece of text, in byte offsets? regexp2 counts in runes; these
// functions convert.

// span is a half-open byte range and whether it is a match of the pattern.
type span struct {
	start, end int
	match      bool
}

// regexSpans returns the matches of re in s and the gaps between them, in
// order, as tokenizers' Pattern::find_matches does.
func regexSpans(dst []span, re *regexp2.Regexp, s string) []span {
	if s == "" {
		return append(dst, span{0, 0, false})
	}
	runes := []rune(s)
	// byteAt[i] is the byte offset of rune i.
	byteAt := make([]int, len(runes)+1)
	off := 0
	for i, r := range runes {
		byteAt[i] = off
		off += utf8.RuneLen(r)
	}
	byteAt[len(runes)] = off
	prev := 0
	m, err := re.FindRunesMatch(runes)
	for m != nil && err == nil {
		start, end := byteAt[m.Index], byteAt[m.Index+m.Length]
		if start != prev {
			dst = append(dst, span{prev, start, false})
		}
		dst = append(dst, span{start, end, true})
		prev = end
		m, err = re.FindNextMatch(m)
	}
	if prev != len(s) {
		dst = append(dst, span{prev, len(s), false})
	}
	return dst
}

// literalSpans is regexSpans for a literal pattern.
func literalSpans(dst []span, lit, s string) []span {
	if lit == "" {
		return append(dst, span{0, len(s), false})
	}
	if s == "" {
		return append(dst, span{0, 0, false})
	}
	prev := 0
	for {
		i := strings.Index(s[prev:], lit)
		if i < 0 {
			break
		}
		start := prev + i
		if start != prev {
			dst = append(dst, span{prev, start, false})
		}
		dst = append(dst, span{start, start + len(lit), true})
		prev = start + len(lit)
	}
	if prev != len(s) {
		dst = append(dst, span{prev, len(s), false})
	}
	return dst
}

// regexReplaceAll replaces every match of re in s with content, literally.
func regexReplaceAll(re *regexp2.Regexp, s, content string) string {
	spans := regexSpans(nil, re, s)
	var b strings.Builder
	b.Grow(len(s))
	for _, sp := range spans {
		if sp.match {
			b.WriteString(content)
		} else {
			b.WriteString(s[sp.start:sp.end])
		}
	}
	return b.String()
}
