package tokenizer

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const byteLevelJSON = `{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false}`

const tinyModel = `"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}`

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       error
	}{
		{"not json", `{`, ErrBadInput},
		{"no vocab", `{"model": {"type": "BPE"}}`, ErrBadInput},
		{"wordpiece", `{"model": {"type": "WordPiece", "vocab": {}}}`, ErrUnsupported},
		{"dropout", `{"model": {"type": "BPE", "dropout": 0.1, "vocab": {"a": 0}, "merges": []}}`, ErrUnsupported},
		{"merge not in vocab", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a c"]}}`, ErrBadInput},
		{"merge without space", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["aa"]}}`, ErrBadInput},
		{"merge triple", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "a", "a"]]}}`, ErrBadInput},
		{"unk not in vocab", `{"model": {"type": "BPE", "unk_token": "<unk>", "vocab": {"a": 0}, "merges": []}}`, ErrBadInput},
		{"huge id", `{"model": {"type": "BPE", "vocab": {"a": 4000000000}, "merges": []}}`, ErrTooLarge},
		{"normalizer", `{"normalizer": {"type": "BertNormalizer"}, ` + tinyModel + `}`, ErrUnsupported},
		{"pre_tokenizer", `{"pre_tokenizer": {"type": "Whitespace"}, ` + tinyModel + `}`, ErrUnsupported},
		{"metaspace without replacement", `{"pre_tokenizer": {"type": "Metaspace"}, ` + tinyModel + `}`, ErrBadInput},
		{"split behavior", `{"pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "Odd"}, ` + tinyModel + `}`, ErrUnsupported},
		{"bad regex", `{"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "("}, "behavior": "Isolated"}, ` + tinyModel + `}`, ErrUnsupported},
		{"step after bytelevel", `{"pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false}, {"type": "Split", "pattern": {"String": " "}, "behavior": "Isolated"}]}, ` + tinyModel + `}`, ErrUnsupported},
		{"decoder", `{"decoder": {"type": "WordPiece"}, ` + tinyModel + `}`, ErrUnsupported},
		{"decoder in a sequence", `{"decoder": {"type": "Sequence", "decoders": [{"type": "Fuse"}, {"type": "CTC"}]}, ` + tinyModel + `}`, ErrUnsupported},
		{"decoder without type", `{"decoder": {"decoders": []}, ` + tinyModel + `}`, ErrUnsupported},
		// Chains tokenizers runs but a stream cannot follow exactly.
		{"byte fallback after fuse", `{"decoder": {"type": "Sequence", "decoders": [{"type": "Fuse"}, {"type": "ByteFallback"}]}, ` + tinyModel + `}`, ErrUnsupported},
		{"regex replace after fuse", `{"decoder": {"type": "Sequence", "decoders": [{"type": "Fuse"}, {"type": "Replace", "pattern": {"Regex": "a+"}, "content": "b"}]}, ` + tinyModel + `}`, ErrUnsupported},
		{"bytelevel after bytelevel", `{"decoder": {"type": "Sequence", "decoders": [` + byteLevelJSON + `, ` + byteLevelJSON + `]}, ` + tinyModel + `}`, ErrUnsupported},
		{"empty replace", `{"decoder": {"type": "Replace", "pattern": {"String": ""}, "content": "b"}, ` + tinyModel + `}`, ErrUnsupported},
		{"post", `{"post_processor": {"type": "Unknown"}, ` + tinyModel + `}`, ErrUnsupported},
	} {
		_, err := FromJSON([]byte(tc.json))
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestTinyTokenizer(t *testing.T) {
	tk, err := FromJSON([]byte(`{"added_tokens": [{"id": 3, "content": "<x>", "special": true}],
		"post_processor": {"type": "RobertaProcessing", "sep": ["<x>", 3], "cls": ["<x>", 3]}, ` + tinyModel + `}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := tk.Encode("aab<x>b"); !slices.Equal(got, []uint32{3, 0, 2, 3, 1, 3}) {
		t.Errorf("Encode = %v", got)
	}
	if got := tk.EncodeWith("ab", EncodeOptions{NoSpecialTokens: true}); !slices.Equal(got, []uint32{2}) {
		t.Errorf("EncodeWith(NoSpecialTokens) = %v", got)
	}
	// No decoder: tokens joined by a space.
	if got := tk.Decode([]uint32{0, 2, 3, 1, 99}, false); got != "a ab <x> b" {
		t.Errorf("Decode = %q", got)
	}
	if got := streamAll(tk, []uint32{0, 2, 3, 1, 99}, true); got != "a ab b" {
		t.Errorf("stream = %q", got)
	}
}

func TestLoadPaths(t *testing.T) {
	// A directory with only tokenizer.json.gz, and the file itself.
	for _, p := range []string{filepath.Join("testdata", "qwen3"), filepath.Join("testdata", "qwen3", "tokenizer.json.gz")} {
		if testing.Short() {
			break
		}
		tk, err := Load(p)
		if err != nil {
			t.Fatalf("Load(%s): %v", p, err)
		}
		if tk.VocabSize() != 151669 {
			t.Errorf("Load(%s): vocab %d", p, tk.VocabSize())
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(`{`+tinyModel+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err != nil {
		t.Errorf("Load(dir): %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("Load(missing) succeeded")
	}
}

// TestReadMaybeGzipSizes reads files whose declared sizes mislead the
// buffer's sizing: a gzip of two members (the trailer gives the last
// one's size only), one whose trailer is larger than deflate allows, and
// a plain file; each reads exactly its content.
func TestReadMaybeGzipSizes(t *testing.T) {
	want := bytes.Repeat([]byte(`{"model":{"type":"BPE"}} `), 5000)
	member := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	dir := t.TempDir()
	two := append(member(want[:len(want)-100]), member(want[len(want)-100:])...)
	for name, data := range map[string][]byte{"two.json.gz": two, "plain.json": want, "one.json.gz": member(want)} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readMaybeGzip(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, err %v; want %d bytes", name, len(got), err, len(want))
		}
	}
	// A trailer that claims more than deflate can expand the file to is
	// held to that bound; the reader then refuses the bad size.
	bad := member(want)
	binary.LittleEndian.PutUint32(bad[len(bad)-4:], 0xffffffff)
	p := filepath.Join(dir, "bad.json.gz")
	if err := os.WriteFile(p, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := gzipSize(f, int64(len(bad))); got != 1032*int64(len(bad)) {
		t.Errorf("gzipSize = %d, want the deflate bound %d", got, 1032*len(bad))
	}
	if _, err := readMaybeGzip(p); err == nil {
		t.Error("a gzip with a wrong size trailer was read")
	}
}
