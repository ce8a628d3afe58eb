package tokenizer

import (
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// FuzzEncodeDecode: text without added tokens comes back from
// Decode(Encode(text)) as its NFC form (the Qwen normalizer), after lossy
// conversion of invalid UTF-8.
func FuzzEncodeDecode(f *testing.F) {
	tk := loadQwen3(f)
	for _, s := range []string{"Hello, world!", "  \n\t x", "中文 😀 'll", "\xe4\xbd", "e\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := lossyString(s)
		for _, a := range tk.addedRaw.pats {
			if strings.Contains(v, a) {
				return
			}
		}
		want := norm.NFC.String(v)
		if got := tk.Decode(tk.Encode(s), true); got != want {
			t.Fatalf("Decode(Encode(%q)) = %q, want %q", s, got, want)
		}
	})
}

// fuzzIDs reads little-endian uint32 ids, folded into a range a little
// larger than the vocabulary so that unknown ids appear too.
func fuzzIDs(b []byte, limit uint32) []uint32 {
	var ids []uint32
	for len(b) >= 4 {
		ids = append(ids, binary.LittleEndian.Uint32(b)%limit)
		b = b[4:]
	}
	return ids
}

// FuzzDecode: decoding any ids never panics, gives UTF-8, and streaming
// gives the same text.
func FuzzDecode(f *testing.F) {
	tk := loadQwen3(f)
	f.Add([]byte{0x2c, 0x6c, 0x02, 0x00, 0xe4, 0x00, 0x00, 0x00}, true)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x10, 0x00, 0x00, 0x00}, false)
	f.Fuzz(func(t *testing.T, b []byte, skip bool) {
		ids := fuzzIDs(b, uint32(tk.MaxID()+100))
		whole := tk.Decode(ids, skip)
		if !utf8.ValidString(whole) {
			t.Fatalf("Decode(%v) is not UTF-8", ids)
		}
		if got := streamAll(tk, ids, skip); got != whole {
			t.Fatalf("stream(%v) = %q, want %q", ids, got, whole)
		}
	})
}

// FuzzStream: incremental output equals the whole decode for every prefix,
// on byte tokens (where UTF-8 sequences split across ids).
func FuzzStream(f *testing.F) {
	tk := loadQwen3(f)
	f.Add([]byte("\xe4\xbd\xa0\xf0\x9f\x98\x80\xff\xc3"))
	f.Add([]byte("abc\xed\xa0\x80"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ids := make([]uint32, len(b))
		for i, c := range b {
			ids[i] = tk.model.byteIDs[c]
		}
		if len(ids) > 64 {
			ids = ids[:64]
		}
		checkStreamPrefixes(t, tk, ids, false)
	})
}
