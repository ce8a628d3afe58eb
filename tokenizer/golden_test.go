package tokenizer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// The goldens were written by scripts/golden/tokenizer_ref.mjs with Hugging
// Face tokenizers 0.23.2 (the Rust library's Node binding).

type corpusEntry struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

type variant struct {
	Name   string                     `json:"name"`
	Base   *string                    `json:"base"`
	Decode bool                       `json:"decode"`
	Patch  map[string]json.RawMessage `json:"patch"`
}

type goldenIDs struct {
	Variant  string   `json:"variant"`
	Name     string   `json:"name"`
	IDs      []uint32 `json:"ids"`
	IDsPlain []uint32 `json:"ids_plain"` // with add_special_tokens false
}

type goldenDecode struct {
	Variant     string   `json:"variant"`
	Name        string   `json:"name"`
	IDs         []uint32 `json:"ids"`
	SkipSpecial bool     `json:"skip_special"`
	Text        string   `json:"text"`
}

// decodeJSONFile reads a JSON file into a T.
func decodeJSONFile[T any](t testing.TB, path string) T {
	t.Helper()
	var v T
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// readJSONL reads a JSON-lines file, gzip-compressed when its name ends in
// ".gz".
func readJSONL[T any](t testing.TB, path string) []T {
	t.Helper()
	data, err := readMaybeGzip(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func corpus(t testing.TB) []corpusEntry {
	return readJSONL[corpusEntry](t, filepath.Join("testdata", "corpus.jsonl"))
}

var qwen3JSON = sync.OnceValues(func() ([]byte, error) {
	return readMaybeGzip(filepath.Join("testdata", "qwen3", "tokenizer.json.gz"))
})

var qwen3Tok = sync.OnceValues(func() (*Tokenizer, error) {
	data, err := qwen3JSON()
	if err != nil {
		return nil, err
	}
	return FromJSON(data)
})

func loadQwen3(t testing.TB) *Tokenizer {
	t.Helper()
	tk, err := qwen3Tok()
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// variantJSON builds a variant's tokenizer.json as the reference script does.
func variantJSON(t testing.TB, v variant) []byte {
	t.Helper()
	if v.Base == nil {
		b, err := json.Marshal(v.Patch)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	data, err := qwen3JSON()
	if err != nil {
		t.Fatal(err)
	}
	return patchJSON(t, data, v.Patch)
}

// patchJSON replaces top-level keys of a tokenizer.json; the key
// "added_tokens_append" appends to added_tokens instead.
func patchJSON(t testing.TB, data []byte, patch map[string]json.RawMessage) []byte {
	t.Helper()
	if len(patch) == 0 {
		return data
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for k, val := range patch {
		if k == "added_tokens_append" {
			var base, extra []json.RawMessage
			_ = json.Unmarshal(doc["added_tokens"], &base)
			_ = json.Unmarshal(val, &extra)
			doc["added_tokens"], _ = json.Marshal(append(base, extra...))
			continue
		}
		doc[k] = val
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type variantSet struct {
	toks map[string]*Tokenizer
	vs   []variant
}

var variantsOnce sync.Once
var variantsLoaded variantSet

// loadVariants builds every variant once per test binary.
func loadVariants(t testing.TB) (map[string]*Tokenizer, []variant) {
	t.Helper()
	variantsOnce.Do(func() {
		vs := decodeJSONFile[[]variant](t, filepath.Join("testdata", "variants.json"))
		toks := map[string]*Tokenizer{}
		for _, v := range vs {
			if v.Name == "qwen3" {
				toks[v.Name] = loadQwen3(t)
				continue
			}
			tk, err := FromJSON(variantJSON(t, v))
			if err != nil {
				t.Fatalf("variant %s: %v", v.Name, err)
			}
			toks[v.Name] = tk
		}
		variantsLoaded = variantSet{toks, vs}
	})
	if variantsLoaded.toks == nil {
		t.Fatal("variants failed to load")
	}
	return variantsLoaded.toks, variantsLoaded.vs
}

func describe(tk *Tokenizer, ids []uint32) string {
	s := "["
	for i, id := range ids {
		if i > 0 {
			s += " "
		}
		tok, _ := tk.IDToken(id)
		s += fmt.Sprintf("%d:%q", id, tok)
	}
	return s + "]"
}

func TestGoldenEncode(t *testing.T) {
	toks, _ := loadVariants(t)
	texts := map[string]string{}
	for _, e := range corpus(t) {
		texts[e.Name] = e.Text
	}
	golden := readJSONL[goldenIDs](t, filepath.Join("testdata", "golden_ids.jsonl"))
	if len(golden) == 0 {
		t.Fatal("no goldens")
	}
	for _, g := range golden {
		tk := toks[g.Variant]
		got := tk.Encode(texts[g.Name])
		if !slices.Equal(got, g.IDs) {
			i := 0
			for i < len(got) && i < len(g.IDs) && got[i] == g.IDs[i] {
				i++
			}
			lo := max(0, i-3)
			t.Errorf("%s/%s: ids differ at %d:\n got  %s\n want %s", g.Variant, g.Name, i,
				describe(tk, got[lo:min(len(got), i+5)]), describe(tk, g.IDs[lo:min(len(g.IDs), i+5)]))
		}
	}
}

func TestGoldenDecode(t *testing.T) {
	toks, _ := loadVariants(t)
	ids := map[string][]uint32{}
	for _, g := range readJSONL[goldenIDs](t, filepath.Join("testdata", "golden_ids.jsonl")) {
		ids[g.Variant+"/"+g.Name] = g.IDs
	}
	golden := readJSONL[goldenDecode](t, filepath.Join("testdata", "golden_decode.jsonl"))
	if len(golden) == 0 {
		t.Fatal("no goldens")
	}
	for _, g := range golden {
		tk := toks[g.Variant]
		seq := g.IDs
		if seq == nil {
			seq = ids[g.Variant+"/"+g.Name]
		}
		if got := tk.Decode(seq, g.SkipSpecial); got != g.Text {
			t.Errorf("%s/%s skip=%v: Decode = %q, want %q", g.Variant, g.Name, g.SkipSpecial, got, g.Text)
		}
		if got := streamAll(tk, seq, g.SkipSpecial); got != g.Text {
			t.Errorf("%s/%s skip=%v: stream = %q, want %q", g.Variant, g.Name, g.SkipSpecial, got, g.Text)
		}
	}
}

func streamAll(tk *Tokenizer, ids []uint32, skip bool) string {
	s := tk.NewStream(skip)
	out := ""
	for _, id := range ids {
		out += s.Add(id)
	}
	return out + s.Flush()
}
