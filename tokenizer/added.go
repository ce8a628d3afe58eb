package tokenizer

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file answers: where are the added tokens in a text? As tokenizers'
// AddedVocabulary: leftmost match, longest at that position, matches never
// overlap, then the single_word, lstrip and rstrip rules.

// addedToken is one entry of tokenizer.json's "added_tokens".
type addedToken struct {
	id         uint32
	content    string
	singleWord bool
	lstrip     bool
	rstrip     bool
	normalized bool
	special    bool
}

// matcher finds a fixed set of added tokens in text.
type matcher struct {
	pats []string
	toks []*addedToken
	// byPrefix[b][c]: the patterns of two or more bytes that start with b,
	// c; single[b]: the one-byte pattern b, or -1.
	byPrefix [256]*[256]bucket
	single   [256]int32
	starts   [256]bool // bytes that start a pattern
	firsts   string    // the distinct first bytes
}

// maxList is the number of patterns sharing their first two bytes above
// which they are matched with a trie rather than one by one (Gemma 3 has
// 6,242 added tokens that start "<u").
const maxList = 32

// bucket holds the patterns that share their first two bytes: in a list,
// longest first, or, when there are many, in a trie.
type bucket struct {
	list []int32
	trie *trie
}

func newMatcher(pats []string, toks []*addedToken) *matcher {
	m := &matcher{pats: pats, toks: toks}
	for b := range m.single {
		m.single[b] = -1
	}
	for i, p := range pats {
		if p == "" {
			continue
		}
		if !m.starts[p[0]] {
			m.starts[p[0]] = true
			m.firsts += p[:1]
		}
		if len(p) == 1 {
			m.single[p[0]] = int32(i)
			continue
		}
		if m.byPrefix[p[0]] == nil {
			m.byPrefix[p[0]] = new([256]bucket)
		}
		b := &m.byPrefix[p[0]][p[1]]
		b.list = append(b.list, int32(i))
	}
	for _, second := range m.byPrefix {
		if second == nil {
			continue
		}
		for c := range second {
			b := &second[c]
			if len(b.list) > maxList {
				b.trie, b.list = newTrie(pats, b.list), nil
				continue
			}
			sort.SliceStable(b.list, func(i, j int) bool { return len(pats[b.list[i]]) > len(pats[b.list[j]]) })
		}
	}
	return m
}

func (m *matcher) empty() bool { return m == nil || len(m.pats) == 0 }

// find returns the leftmost-longest match at or after from.
func (m *matcher) find(s string, from int) (start, end int, tok *addedToken) {
	for i := from; i < len(s); i++ {
		// Jump to the next byte that starts a pattern.
		if len(m.firsts) == 1 {
			k := strings.IndexByte(s[i:], m.firsts[0])
			if k < 0 {
				break
			}
			i += k
		} else if !m.starts[s[i]] {
			continue
		}
		if second := m.byPrefix[s[i]]; second != nil && i+1 < len(s) {
			b := &second[s[i+1]]
			if b.trie != nil {
				if c := b.trie.longest(s, i); c >= 0 {
					return i, i + len(m.pats[c]), m.toks[c]
				}
			}
			for _, c := range b.list {
				p := m.pats[c]
				if len(s)-i >= len(p) && s[i:i+len(p)] == p {
					return i, i + len(p), m.toks[c]
				}
			}
		}
		if c := m.single[s[i]]; c >= 0 {
			return i, i + 1, m.toks[c]
		}
	}
	return -1, -1, nil
}

// trie is a byte trie of patterns; node 0 is the root.
type trie struct {
	nodes []trieNode
	edges []trieEdge // the edges of node n are edges[n.lo:n.hi], by byte
}

type trieNode struct {
	lo, hi int32
	pat    int32 // index of the pattern ending here, or -1
}

type trieEdge struct {
	b    byte
	next int32
}

// newTrie builds the trie of pats[i] for i in idx; of equal patterns the
// first wins.
func newTrie(pats []string, idx []int32) *trie {
	type key struct {
		node int32
		b    byte
	}
	child := map[key]int32{}
	pat := []int32{-1}
	for _, i := range idx {
		n := int32(0)
		for j := 0; j < len(pats[i]); j++ {
			c, ok := child[key{n, pats[i][j]}]
			if !ok {
				c = int32(len(pat))
				pat = append(pat, -1)
				child[key{n, pats[i][j]}] = c
			}
			n = c
		}
		if pat[n] < 0 {
			pat[n] = i
		}
	}
	keys := make([]key, 0, len(child))
	for k := range child {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].node != keys[j].node {
			return keys[i].node < keys[j].node
		}
		return keys[i].b < keys[j].b
	})
	t := &trie{nodes: make([]trieNode, len(pat)), edges: make([]trieEdge, len(keys))}
	for i, k := range keys {
		t.edges[i] = trieEdge{b: k.b, next: child[k]}
		if t.nodes[k.node].hi == 0 {
			t.nodes[k.node].lo = int32(i)
		}
		t.nodes[k.node].hi = int32(i + 1)
	}
	for n := range t.nodes {
		t.nodes[n].pat = pat[n]
	}
	return t
}

// longest returns the longest pattern that s has at i, or -1.
func (t *trie) longest(s string, i int) int32 {
	best, n := int32(-1), int32(0)
	for j := i; ; j++ {
		if p := t.nodes[n].pat; p >= 0 {
			best = p
		}
		if j == len(s) {
			return best
		}
		if n = t.next(n, s[j]); n < 0 {
			return best
		}
	}
}

// next returns the child of node n by byte b, or -1.
func (t *trie) next(n int32, b byte) int32 {
	lo, hi := t.nodes[n].lo, t.nodes[n].hi
	for lo < hi {
		mid := int32(uint32(lo+hi) >> 1)
		switch e := t.edges[mid]; {
		case e.b == b:
			return e.next
		case e.b < b:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1
}

// segment is a piece of text, or an added token (tok non-nil).
type segment struct {
	text string
	tok  *addedToken
}

// split appends the pieces of s to dst: the added tokens found and the text
// between them (tokenizers' AddedVocabulary::find_matches). An empty s gives
// one empty piece.
func (m *matcher) split(dst []segment, s string) []segment {
	if s == "" || m.empty() {
		return append(dst, segment{text: s})
	}
	offset := 0 // end of the last piece appended
	for pos := 0; pos < len(s); {
		start, stop, tok := m.find(s, pos)
		if tok == nil {
			break
		}
		pos = stop
		if tok.singleWord {
			startSpace := start == 0 || !endsWithWord(s[:start])
			stopSpace := stop == len(s) || !startsWithWord(s[stop:])
			if !startSpace || !stopSpace {
				continue
			}
		}
		if tok.lstrip {
			start = max(spaceLeftmostAtEnd(s[:start]), offset)
		}
		if tok.rstrip {
			// The search goes on where the token itself ended, as
			// tokenizers' matcher does.
			stop += spaceRightmostAtStart(s[stop:])
		}
		start = max(start, offset)
		if start > offset {
			dst = append(dst, segment{text: s[offset:start]})
		}
		dst = append(dst, segment{text: s[start:stop], tok: tok})
		offset = stop
	}
	if offset != len(s) {
		dst = append(dst, segment{text: s[offset:]})
	}
	return dst
}

// isWordChar is the \w class of Rust's regex crate: Alphabetic, marks,
// decimal digits, connector punctuation and join controls.
func isWordChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_Alphabetic, r) ||
		unicode.Is(unicode.M, r) || unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Pc, r) ||
		r == 0x200C || r == 0x200D
}

func endsWithWord(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	return n > 0 && isWordChar(r)
}

func startsWithWord(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n > 0 && isWordChar(r)
}

// spaceLeftmostAtEnd returns where the whitespace at the end of s starts.
func spaceLeftmostAtEnd(s string) int {
	i := len(s)
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsSpace(r) {
			break
		}
		i -= n
	}
	return i
}

// spaceRightmostAtStart returns the length of the whitespace at the start of s.
func spaceRightmostAtStart(s string) int {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return i
}
