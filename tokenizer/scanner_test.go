package tokenizer

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// The scanner is the fast kernel; regexp2 running the same pattern is the
// slow, obviously-correct reference.

func scannerPieces(w wordScanner, s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := w.next(s, i)
		if j <= i {
			panic("scanner did not advance")
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func regexPieces(t testing.TB, pat, s string) []string {
	t.Helper()
	re, err := compileRegex(pat)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sp := range regexSpans(nil, re, s) {
		if !sp.match && sp.end > sp.start {
			t.Fatalf("pattern leaves %q unmatched in %q", s[sp.start:sp.end], s)
		}
		if sp.end > sp.start {
			out = append(out, s[sp.start:sp.end])
		}
	}
	return out
}

// scannerAlphabet has a character of every class the pattern distinguishes.
var scannerAlphabet = []string{
	"a", "Z", "é", "ß", "中", "ŉ", "ſ", "K", "ǅ", "ʰ", // letters (Ll, Lu, Lo, Lt, Lm)
	"0", "9", "٣", "½", "Ⅻ", "²", // numbers (Nd, No, Nl)
	" ", "  ", "\t", "\n", "\r", "\r\n", "\v", "\f", "\u00a0", "\u0085", "\u2003", "\u3000", "\u2028", "\u1680", "\u180e",
	"\x1c", "\x1f", "\u200b", "\ufeff", // not whitespace
	"'", "'s", "'S", "'re", "'RE", "'ll", "'Ll", "'ve", "'m", "'d", "'t", "'x",
	".", ",", "!", "(", "_", "-", "😀", "👨‍👩‍👧", "\u0301", "\u0903", "\u20dd", // other (P, S, M, ZWJ)
}

func randomScannerText(r *rand.Rand) string {
	var b strings.Builder
	n := r.IntN(24)
	for i := 0; i < n; i++ {
		b.WriteString(scannerAlphabet[r.IntN(len(scannerAlphabet))])
	}
	return b.String()
}

func TestScannerMatchesRegexp2(t *testing.T) {
	texts := []string{"", "a", " ", "  ", " a", "  a", "\n", " \n ", "a  \n  b", "x  ", "'s'S'ss", "  'll", "123456789"}
	for _, e := range corpus(t) {
		texts = append(texts, e.Text)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		texts = append(texts, randomScannerText(r))
	}
	for _, tc := range []struct {
		pat string
		w   wordScanner
	}{{patternQwen, wordScanner{maxDigits: 1}}, {patternLlama3, wordScanner{maxDigits: 3}}} {
		for _, s := range texts {
			got, want := scannerPieces(tc.w, s), regexPieces(t, tc.pat, s)
			if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
				t.Fatalf("digits=%d %q:\n got  %q\n want %q", tc.w.maxDigits, s, got, want)
			}
		}
	}
}

func FuzzScanner(f *testing.F) {
	for _, s := range []string{"Hello world's 123", "  \n\n x", "\t'LL中文😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		got, want := scannerPieces(wordScanner{maxDigits: 1}, s), regexPieces(t, patternQwen, s)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("%q:\n got  %q\n want %q", s, got, want)
		}
	})
}
