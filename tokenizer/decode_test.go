package tokenizer

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func TestAppendLossy(t *testing.T) {
	// Expected values follow Rust's String::from_utf8_lossy (one U+FFFD per
	// maximal subpart); golden_decode.jsonl checks the same through the
	// reference tokenizer.
	r := "\uFFFD"
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{"\xe4\xbd", r},
		{"\xe4\xbd\xa0", "你"},
		{"\xf0\x9f\x98a", r + "a"},
		{"\x80\xbf", r + r},
		{"\xc0\xaf", r + r},
		{"\xe0\x80\xaf", r + r + r},
		{"\xed\xa0\x80", r + r + r},
		{"\xf4\x90\x80\x80", r + r + r + r},
		{"\xf4\x8f\xbf\xbf", "\U0010FFFF"},
		{"\xff\xfeA", r + r + "A"},
		{"a\xe2\x82b\xe2\x82\xac\xc3", "a" + r + "b€" + r},
	} {
		got, _ := appendLossy(nil, []byte(tc.in), true)
		if string(got) != tc.want {
			t.Errorf("lossy(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// Held back: only a truncated tail.
		part, pend := appendLossy(nil, []byte(tc.in), false)
		rest, _ := appendLossy(nil, []byte(tc.in)[len(tc.in)-pend:], true)
		if string(part)+string(rest) != tc.want || !utf8.Valid(part) {
			t.Errorf("lossy(%q) in two parts = %q + %q", tc.in, part, rest)
		}
	}
}

// checkStreamPrefixes checks that for every prefix of ids, the stream's
// output so far is a prefix of the decode of that prefix and with Flush
// equals it, and that every chunk is valid UTF-8.
func checkStreamPrefixes(t *testing.T, tk *Tokenizer, ids []uint32, skip bool) {
	t.Helper()
	s := tk.NewStream(skip)
	out := ""
	for k := 0; k <= len(ids); k++ {
		if k > 0 {
			chunk := s.Add(ids[k-1])
			if !utf8.ValidString(chunk) {
				t.Fatalf("chunk %q is not UTF-8", chunk)
			}
			out += chunk
		}
		whole := tk.Decode(ids[:k], skip)
		if !strings.HasPrefix(whole, out) {
			t.Fatalf("ids %v prefix %d: streamed %q is not a prefix of %q", ids, k, out, whole)
		}
		// The stream flushed here must complete the text: a copy of it
		// when its state is a byte buffer, else a new stream given the same
		// ids.
		got := streamAll(tk, ids[:k], skip)
		if s.stages == nil {
			c := *s
			c.pending = append([]byte(nil), s.pending...)
			got = out + c.Flush()
		}
		if got != whole {
			t.Fatalf("ids %v prefix %d: streamed+flush %q, want %q", ids, k, got, whole)
		}
	}
}

func TestStreamEveryPrefix(t *testing.T) {
	tk := loadQwen3(t)
	for _, g := range readJSONL[goldenDecode](t, "testdata/golden_decode.jsonl") {
		if g.Variant == "qwen3" && g.IDs != nil {
			checkStreamPrefixes(t, tk, g.IDs, g.SkipSpecial)
		}
	}
	for _, e := range corpus(t) {
		ids := tk.Encode(e.Text)
		if len(ids) > 300 {
			ids = ids[:300]
		}
		checkStreamPrefixes(t, tk, ids, false)
		checkStreamPrefixes(t, tk, ids, true)
	}
}

func TestRoundTrip(t *testing.T) {
	for name, tk := range map[string]*Tokenizer{"qwen3": loadQwen3(t)} {
		for _, e := range corpus(t) {
			ids := tk.Encode(e.Text)
			want := e.Text
			if !norm.NFC.IsNormalString(want) {
				continue // NFC changes the text
			}
			if got := tk.Decode(ids, false); got != want {
				t.Errorf("%s/%s: Decode(Encode) = %q, want %q", name, e.Name, got, want)
			}
		}
	}
}

func TestTokenLookups(t *testing.T) {
	tk := loadQwen3(t)
	for _, tc := range []struct {
		tok     string
		id      uint32
		special bool
	}{
		{"<|endoftext|>", 151643, true},
		{"<|im_start|>", 151644, true},
		{"<|im_end|>", 151645, true},
		{"<|image_pad|>", 151655, true},
		{"<|video_pad|>", 151656, true},
		{"<tool_call>", 151657, false},
		{"<think>", 151667, false},
		{"</think>", 151668, false},
		{"Hello", 9707, false},
		{"Ġ", 220, false},
	} {
		id, ok := tk.TokenID(tc.tok)
		if !ok || id != tc.id {
			t.Errorf("TokenID(%q) = %d %v, want %d", tc.tok, id, ok, tc.id)
		}
		if s, ok := tk.IDToken(tc.id); !ok || s != tc.tok {
			t.Errorf("IDToken(%d) = %q %v", tc.id, s, ok)
		}
		if tk.IsSpecial(tc.id) != tc.special {
			t.Errorf("IsSpecial(%d) = %v", tc.id, !tc.special)
		}
	}
	if _, ok := tk.TokenID("<|IM_START|>"); ok {
		t.Error("TokenID found a near miss")
	}
	if _, ok := tk.IDToken(1 << 30); ok {
		t.Error("IDToken found an id out of range")
	}
	if got, want := tk.VocabSize(), 151669; got != want { // tokenizers' get_vocab_size(true)
		t.Errorf("VocabSize = %d, want %d", got, want)
	}
	if got := len(tk.SpecialIDs()); got != 14 {
		t.Errorf("%d special ids, want 14", got)
	}
	if got := tk.Encode(""); got == nil || len(got) != 0 {
		t.Errorf("Encode(\"\") = %#v, want empty non-nil", got)
	}
	if got := tk.Decode(nil, true); got != "" {
		t.Errorf("Decode(nil) = %q", got)
	}
}

func TestEncodeInvalidUTF8(t *testing.T) {
	tk := loadQwen3(t)
	// Invalid bytes are encoded as the U+FFFD that lossy conversion gives.
	got := tk.Encode("a\xe4\xbdb\xff")
	want := tk.Encode("a\uFFFDb\uFFFD")
	if !slicesEqual(got, want) {
		t.Errorf("Encode(invalid) = %v, want %v", got, want)
	}
}

func slicesEqual(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestConcurrentEncode(t *testing.T) {
	data, err := qwen3JSON()
	if err != nil {
		t.Fatal(err)
	}
	tk, err := New(data, Options{CacheEntries: 64}) // a tiny cache: many evictions
	if err != nil {
		t.Fatal(err)
	}
	ref := loadQwen3(t)
	var texts []string
	for _, e := range corpus(t) {
		texts = append(texts, e.Text)
	}
	want := make([][]uint32, len(texts))
	for i, s := range texts {
		want[i] = ref.Encode(s)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 9))
			for i := 0; i < 300; i++ {
				k := r.IntN(len(texts))
				if got := tk.Encode(texts[k]); !slicesEqual(got, want[k]) {
					errs <- texts[k]
					return
				}
			}
		}(uint64(g))
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Errorf("concurrent Encode(%q) differs", s)
	}
}

// TestStreamHoldsByteRun: byte-fallback tokens that only form a character
// together are held until a token that is not a byte ends the run, since a
// bad byte later in the run would turn all of it into U+FFFD; the whole
// text is checked against the reference in TestGoldenModels.
func TestStreamHoldsByteRun(t *testing.T) {
	tk := loadFixture(t, "llava-1.5")
	id := func(tok string) uint32 {
		t.Helper()
		v, ok := tk.TokenID(tok)
		if !ok {
			t.Fatalf("no token %q", tok)
		}
		return v
	}
	s := tk.NewStream(true)
	for _, b := range []string{"<0xE2>", "<0x82>", "<0xAC>"} {
		if got := s.Add(id(b)); got != "" || !s.Pending() {
			t.Fatalf("Add(%s) = %q, Pending %v; want the byte held", b, got, s.Pending())
		}
	}
	if got := s.Add(id("▁H")); got != "€ H" || s.Pending() {
		t.Fatalf("Add(▁H) = %q, Pending %v; want \"€ H\" and nothing held", got, s.Pending())
	}
	s.Add(id("<0xE2>"))
	if got := s.Flush(); got != "\uFFFD" || s.Pending() {
		t.Fatalf("Flush = %q, Pending %v", got, s.Pending())
	}
	// After Flush the stream starts a new text: its leading space is
	// stripped again.
	if got := s.Add(id("▁H")) + s.Flush(); got != "H" {
		t.Fatalf("after Flush: %q, want \"H\"", got)
	}
}
