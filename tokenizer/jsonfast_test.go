package tokenizer

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// slowParse is the reference for parseFast: encoding/json throughout.
func slowParse(data []byte) (*fileJSON, [][2]string, error) {
	f := &fileJSON{}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, nil, err
	}
	m, err := parseMerges(f.Model.Merges)
	if m == nil && err == nil {
		m = [][2]string{}
	}
	f.Model.Merges = nil
	return f, m, err
}

func compactRaw(r json.RawMessage) string {
	if r == nil {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, r); err != nil {
		return "invalid:" + string(r)
	}
	return b.String()
}

// sameParse reports whether the fast result equals encoding/json's.
func sameParse(t *testing.T, data []byte) {
	t.Helper()
	f, m, err := parseFast(data)
	if err != nil {
		return // declined: the slow path runs, nothing to compare
	}
	g, gm, gerr := slowParse(data)
	if gerr != nil {
		t.Fatalf("fast path accepted what encoding/json refuses (%v): %q", gerr, data)
	}
	if len(m) != 0 || len(gm) != 0 {
		if !reflect.DeepEqual(m, gm) {
			t.Fatalf("merges differ: %v vs %v", m, gm)
		}
	}
	if len(f.Model.Vocab) != 0 || len(g.Model.Vocab) != 0 {
		if !reflect.DeepEqual(f.Model.Vocab, g.Model.Vocab) {
			t.Fatalf("vocab differs: %v vs %v", f.Model.Vocab, g.Model.Vocab)
		}
	}
	f.Model.Vocab, g.Model.Vocab = nil, nil
	f.Model.Merges = nil
	for _, p := range [][2]*json.RawMessage{{&f.Normalizer, &g.Normalizer}, {&f.PreTokenizer, &g.PreTokenizer},
		{&f.PostProcessor, &g.PostProcessor}, {&f.Decoder, &g.Decoder}} {
		if compactRaw(*p[0]) != compactRaw(*p[1]) {
			t.Fatalf("raw part differs: %s vs %s", *p[0], *p[1])
		}
		*p[0], *p[1] = nil, nil
	}
	if !reflect.DeepEqual(f, g) {
		t.Fatalf("parse differs:\n%+v\n%+v", f, g)
	}
}

func TestParseFastMatchesEncodingJSON(t *testing.T) {
	data, err := qwen3JSON()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := parseFast(data); err != nil {
		t.Fatal("the fast path declined the Qwen3 tokenizer.json")
	}
	sameParse(t, data)
	_, vs := loadVariants(t)
	for _, v := range vs {
		if v.Base == nil {
			sameParse(t, variantJSON(t, v))
		}
	}
	for _, s := range []string{
		`{"model": {"vocab": {"a\u0062": 1, "\"": 2}, "merges": ["a b", ["x", "y z"]]}}`,
		`{"model": {"type": "BPE", "dropout": null, "vocab": {}, "merges": []}, "normalizer": null}`,
		`{"Model": {}}`,
		`{"model": {"vocab": {"a": 1.0}}}`,
		`{"model": {"vocab": {"a": 1}}, "model": {}}`,
		`{"model": {"merges": [], "vocab": {"a": 0}, "dropout": null, "fuse_unk": true}, "decoder": null}`,
		`{"model": {"vocab": {"a": 000}}}`,
		`{"model": {"vocab": {"a": 01, "b": 10}}}`,
	} {
		sameParse(t, []byte(s))
	}
}

func FuzzParseFast(f *testing.F) {
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}}`))
	f.Add([]byte(`{"added_tokens": [{"id": 3, "content": "<x>", "special": true}], "model": {"vocab": {"a": 0}, "merges": [["a", "a"]]}, "decoder": {"type": "ByteLevel"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameParse(t, data)
		_, _ = FromJSON(data) // never panics
	})
}

func TestParseFastScalarsLast(t *testing.T) {
	data := []byte(`{"model": {"merges": [], "vocab": {"a": 0}, "fuse_unk": true}, "decoder": null}`)
	f, _, err := parseFast(data)
	if err != nil || !f.Model.FuseUnk || f.Model.Vocab["a"] != 0 {
		t.Fatalf("parseFast: %+v %v", f, err)
	}
}
