package tokenizer

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzModelEncodeDecode: for the SentencePiece-style fixtures, encoding
// never fails, streaming gives what Decode gives, and text comes back from
// Decode(Encode(text)) (after lossy conversion of invalid UTF-8) whenever
// the reference guarantees it: no "▁" typed in the text (it reads as a
// space) and no text of a token that decoding drops (special tokens with
// skip_special_tokens) or that splits the text (Llama prepends "▁" to each
// piece between added tokens).
func FuzzModelEncodeDecode(f *testing.F) {
	gemma := loadFixture(f, "gemma3")
	llama := loadFixture(f, "llava-1.5")
	for _, s := range []string{"Hello, world!", " leading", "trailing  ", "a\n\n\tb", "日本語 😀",
		"𓀀 ꙮ \ue000", "e\u0301", "\xe4\xbd", "<0x41>", "<table>", "<unused3>", "<start_of_turn>", "▁x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := lossyString(s)
		ids := gemma.EncodeWith(s, EncodeOptions{NoSpecialTokens: true})
		whole := gemma.Decode(ids, false)
		if got := streamAll(gemma, ids, false); got != whole {
			t.Fatalf("gemma3 %q: stream %q, Decode %q", s, got, whole)
		}
		if !strings.Contains(v, "▁") && !containsToken(gemma, v, true) && whole != v {
			t.Fatalf("gemma3: Decode(Encode(%q)) = %q", s, whole)
		}
		ids = llama.Encode(s)
		whole = llama.Decode(ids, true)
		if got := streamAll(llama, ids, true); got != whole {
			t.Fatalf("llava-1.5 %q: stream %q, Decode %q", s, got, whole)
		}
		if !strings.Contains(v, "▁") && !containsToken(llama, v, false) && whole != v {
			t.Fatalf("llava-1.5: Decode(Encode(%q)) = %q", s, whole)
		}
	})
}

// containsToken reports whether s holds the text of an added token (only
// of a special one when specialOnly).
func containsToken(tk *Tokenizer, s string, specialOnly bool) bool {
	for _, a := range tk.addedRaw.toks {
		if (a.special || !specialOnly) && strings.Contains(s, a.content) {
			return true
		}
	}
	return false
}

// FuzzModelDecode: decoding any ids with each decoder chain of the Llama
// and Mistral fixtures and their variants (Gemma 3's chain is Llama's
// without Strip) never panics, gives UTF-8, and the stream gives, at every
// prefix, a prefix of the decode of that prefix and, with Flush, all of it.
func FuzzModelDecode(f *testing.F) {
	var toks []*Tokenizer
	for _, v := range decodeJSONFile[[]modelVariant](f, filepath.Join("testdata", "model_variants.json")) {
		if v.Base == "llava-1.5" || v.Base == "llava-next" {
			toks = append(toks, loadModelVariant(f, v))
		}
	}
	f.Add(uint8(0), []byte{0xe4, 0x01, 0, 0, 0x02, 0, 0, 0, 0x82, 0, 0, 0}, false)
	f.Add(uint8(1), []byte{0x23, 0x7c, 0, 0, 0x23, 0x7c, 0, 0, 0x1d, 0x01, 0, 0}, true)
	f.Fuzz(func(t *testing.T, which uint8, b []byte, skip bool) {
		tk := toks[int(which)%len(toks)]
		ids := fuzzIDs(b, 1<<31)
		if len(ids) > 32 {
			ids = ids[:32]
		}
		// Half the ids are byte tokens, so that runs of them form.
		for i, id := range ids {
			if id&1 == 1 {
				ids[i] = tk.model.fallbackIDs[byte(id>>1)]
			} else {
				ids[i] = (id >> 1) % uint32(tk.MaxID()+100)
			}
		}
		if !utf8.ValidString(tk.Decode(ids, skip)) {
			t.Fatalf("Decode(%v) is not UTF-8", ids)
		}
		checkStreamPrefixes(t, tk, ids, skip)
	})
}
