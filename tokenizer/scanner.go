package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// This file answers: how is text split into words quickly for the split
// patterns that real tokenizers use? A hand-written matcher for
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,D}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// with D = 1 (Qwen2, Qwen2.5, Qwen3) or D = 3 (Llama 3, cl100k). It returns
// the same matches as a backtracking engine running the pattern (leftmost,
// first alternative that matches, greedy quantifiers); scanner_test.go checks
// it against regexp2.

// Patterns the scanner implements, exactly as they appear in tokenizer.json.
const (
	patternQwen   = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	patternLlama3 = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// Character classes of the pattern.
const (
	clsOther   uint8 = iota // not whitespace, letter or number
	clsLetter               // \p{L}
	clsNumber               // \p{N}
	clsSpace                // \s other than \r and \n
	clsNewline              // \r or \n
)

// asciiClass classifies the ASCII bytes.
var asciiClass = func() (t [128]uint8) {
	for c := 0; c < 128; c++ {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			t[c] = clsLetter
		case c >= '0' && c <= '9':
			t[c] = clsNumber
		case c == '\r', c == '\n':
			t[c] = clsNewline
		case c == ' ', c == '\t', c == '\v', c == '\f':
			t[c] = clsSpace
		default:
			t[c] = clsOther
		}
	}
	return t
}()

func runeClass(r rune) uint8 {
	switch {
	case unicode.IsLetter(r):
		return clsLetter
	case unicode.IsNumber(r):
		return clsNumber
	case unicode.IsSpace(r):
		return clsSpace
	}
	return clsOther
}

// classAt returns the class of the character at s[i] and its length in bytes.
func classAt(s string, i int) (uint8, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClass[c], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return runeClass(r), n
}

// wordScanner is the matcher; maxDigits is D.
type wordScanner struct {
	maxDigits int
}

// next returns the end of the match that starts at s[i] (i < len(s)). The
// pattern matches at every position, so the pieces cover the text.
func (w wordScanner) next(s string, i int) int {
	c := s[i]
	if c == '\'' {
		if j := contraction(s, i); j > 0 {
			return j
		}
	}
	cls, n := classAt(s, i)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if cls == clsLetter {
		return w.letters(s, i+n)
	}
	if cls == clsOther || cls == clsSpace {
		if j := i + n; j < len(s) {
			if c2, n2 := classAt(s, j); c2 == clsLetter {
				return w.letters(s, j+n2)
			}
		}
	}
	// \p{N}{1,D}
	if cls == clsNumber {
		j := i + n
		for d := 1; d < w.maxDigits && j < len(s); d++ {
			c2, n2 := classAt(s, j)
			if c2 != clsNumber {
				break
			}
			j += n2
		}
		return j
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n]*
	j := i
	if c == ' ' {
		j = i + 1
	}
	k := j
	for k < len(s) {
		c2, n2 := classAt(s, k)
		if c2 != clsOther {
			break
		}
		k += n2
	}
	if k > j {
		for k < len(s) && (s[k] == '\r' || s[k] == '\n') {
			k++
		}
		return k
	}
	// Here s[i] is whitespace.
	return whitespace(s, i)
}

// contraction is the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[i] (an
// apostrophe), or 0 when none starts there.
func contraction(s string, i int) int {
	if i+1 >= len(s) {
		return 0
	}
	switch s[i+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return i + 3
		}
	}
	return 0
}

// whitespace is the end of the whitespace match at s[i]: \s*[\r\n]+, else
// \s+(?!\S).
func whitespace(s string, i int) int {
	// \s*[\r\n]+ : up to the last \r or \n of the whitespace run.
	end, afterNewline, last := i, -1, i
	for end < len(s) {
		c2, n2 := classAt(s, end)
		if c2 == clsNewline {
			afterNewline = end + 1
		} else if c2 != clsSpace {
			break
		}
		last = end
		end += n2
	}
	if afterNewline > 0 {
		return afterNewline
	}
	// \s+(?!\S) : the run, or all of it but its last character when a
	// non-space follows.
	if end == len(s) || last == i {
		return end // the run reaches the end, or \s+ on one character
	}
	return last
}

func (w wordScanner) letters(s string, j int) int {
	for j < len(s) {
		c := s[j]
		if c < utf8.RuneSelf {
			if asciiClass[c] != clsLetter {
				return j
			}
			j++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[j:])
		if !unicode.IsLetter(r) {
			return j
		}
		j += n
	}
	return j
}
