package tokenizer

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// naiveFind is the reference for matcher.find: at each position from left
// to right, the longest pattern that matches there.
func naiveFind(pats []string, s string, from int) (int, int, int) {
	for i := from; i < len(s); i++ {
		best := -1
		for k, p := range pats {
			if p != "" && strings.HasPrefix(s[i:], p) && (best < 0 || len(p) > len(pats[best])) {
				best = k
			}
		}
		if best >= 0 {
			return i, i + len(pats[best]), best
		}
	}
	return -1, -1, -1
}

func TestMatcherLeftmostLongest(t *testing.T) {
	many := []string{"<", "<u>", "<unused1", "ab", "ab", "\n", "\n\n", "\n\n\n"}
	for i := 0; i < 120; i++ {
		many = append(many, fmt.Sprintf("<unused%d>", i))
	}
	many = append(many, "<unused5>", "<unused77") // a repeat (the first wins) and a prefix
	sets := [][]string{
		{"a", "ab", "abc", "b", "<x>", "<xy>", "é", "éé", "中"},
		{"<|im_start|>", "<|im_end|>", "<|im_start"},
		{"x"},
		many,
	}
	r := rand.New(rand.NewPCG(5, 6))
	alpha := []string{"a", "b", "c", "<", "x", "y", ">", "é", "中", "|", "im_start", "_end",
		"u", "unused", "1", "2", "0", "\n"}
	for _, pats := range sets {
		toks := make([]*addedToken, len(pats))
		for i := range toks {
			toks[i] = &addedToken{id: uint32(i), content: pats[i]}
		}
		m := newMatcher(pats, toks)
		for n := 0; n < 2000; n++ {
			var b strings.Builder
			for k := r.IntN(12); k > 0; k-- {
				b.WriteString(alpha[r.IntN(len(alpha))])
			}
			s := b.String()
			for from := 0; from <= len(s); from++ {
				ws, we, wk := naiveFind(pats, s, from)
				gs, ge, tok := m.find(s, from)
				gk := -1
				if tok != nil {
					gk = int(tok.id)
				}
				if gs != ws || ge != we || gk != wk {
					t.Fatalf("%q from %d in %q: got (%d,%d,%d), want (%d,%d,%d)", pats, from, s, gs, ge, gk, ws, we, wk)
				}
			}
		}
	}
}

func TestMatcherFlags(t *testing.T) {
	mk := func(content string, f func(*addedToken)) *addedToken {
		a := &addedToken{content: content}
		f(a)
		return a
	}
	toks := []*addedToken{
		mk("<m>", func(a *addedToken) { a.lstrip = true }),
		mk("[S]", func(a *addedToken) { a.rstrip = true }),
		mk("fox", func(a *addedToken) { a.singleWord = true }),
	}
	m := newMatcher([]string{"<m>", "[S]", "fox"}, toks)
	for _, tc := range []struct{ in, want string }{
		{"a  <m> b", "a|[  <m>]| b"},
		{"a [S]  b", "a |[[S]  ]|b"},
		{"fox foxes _fox fox. (fox)", "[fox]| foxes _fox |[fox]|. (|[fox]|)"},
		{"", ""},
		{"<m><m>", "[<m>]|[<m>]"},
	} {
		var parts []string
		for _, sg := range m.split(nil, tc.in) {
			if sg.tok != nil {
				parts = append(parts, "["+sg.text+"]")
			} else {
				parts = append(parts, sg.text)
			}
		}
		if got := strings.Join(parts, "|"); got != tc.want {
			t.Errorf("split(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
