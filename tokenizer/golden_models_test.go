package tokenizer

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// The goldens of the fixture-model tokenizers (testdata/models at the
// repository root) and their variants were written by
// scripts/golden/tokenizer_models.mjs with Hugging Face tokenizers 0.23.2.

type modelVariant struct {
	Name  string                     `json:"name"`
	Base  string                     `json:"base"`
	Patch map[string]json.RawMessage `json:"patch"`
}

// fixtureJSON reads each base tokenizer.json once per test binary.
var fixtureJSON = func() map[string]func() ([]byte, error) {
	m := map[string]func() ([]byte, error){"qwen3": qwen3JSON}
	for _, name := range []string{"gemma3", "llava-1.5", "llava-next", "internvl3", "glm-4.1v"} {
		path := filepath.Join("..", "testdata", "models", name, "tokenizer.json.gz")
		m[name] = sync.OnceValues(func() ([]byte, error) { return readMaybeGzip(path) })
	}
	return m
}()

// fixtureTok loads each fixture model's tokenizer once per test binary.
var fixtureTok = func() map[string]func() (*Tokenizer, error) {
	m := map[string]func() (*Tokenizer, error){}
	for name, data := range fixtureJSON {
		m[name] = sync.OnceValues(func() (*Tokenizer, error) {
			b, err := data()
			if err != nil {
				return nil, err
			}
			return FromJSON(b)
		})
	}
	return m
}()

func loadFixture(t testing.TB, name string) *Tokenizer {
	t.Helper()
	load, ok := fixtureTok[name]
	if !ok {
		t.Fatalf("no fixture %q", name)
	}
	tk, err := load()
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return tk
}

// loadModelVariant builds a variant: the fixture itself, or its
// tokenizer.json with keys replaced.
func loadModelVariant(t testing.TB, v modelVariant) *Tokenizer {
	t.Helper()
	if len(v.Patch) == 0 {
		return loadFixture(t, v.Base)
	}
	data, err := fixtureJSON[v.Base]()
	if err != nil {
		t.Fatal(err)
	}
	tk, err := FromJSON(patchJSON(t, data, v.Patch))
	if err != nil {
		t.Fatalf("variant %s: %v", v.Name, err)
	}
	return tk
}

// modelCorpus returns the texts of corpus.jsonl and corpus_models.jsonl by
// name.
func modelCorpus(t testing.TB) map[string]string {
	texts := map[string]string{}
	for _, f := range []string{"corpus.jsonl", "corpus_models.jsonl"} {
		for _, e := range readJSONL[corpusEntry](t, filepath.Join("testdata", f)) {
			texts[e.Name] = e.Text
		}
	}
	return texts
}

func TestGoldenModels(t *testing.T) {
	vs := decodeJSONFile[[]modelVariant](t, filepath.Join("testdata", "model_variants.json"))
	texts := modelCorpus(t)
	encs := map[string][]goldenIDs{}
	for _, g := range readJSONL[goldenIDs](t, filepath.Join("testdata", "golden_model_ids.jsonl.gz")) {
		encs[g.Variant] = append(encs[g.Variant], g)
	}
	type vocabSize struct {
		Variant string `json:"variant"`
		Size    int    `json:"vocab_size"`
	}
	sizes := map[string]int{}
	for _, g := range readJSONL[vocabSize](t, filepath.Join("testdata", "golden_model_vocab.jsonl")) {
		sizes[g.Variant] = g.Size
	}
	decs := map[string][]goldenDecode{}
	for _, g := range readJSONL[goldenDecode](t, filepath.Join("testdata", "golden_model_decode.jsonl.gz")) {
		decs[g.Variant] = append(decs[g.Variant], g)
	}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			if len(encs[v.Name]) == 0 {
				t.Fatal("no goldens")
			}
			tk := loadModelVariant(t, v)
			if got := tk.VocabSize(); got != sizes[v.Name] {
				t.Errorf("VocabSize = %d, want %d", got, sizes[v.Name])
			}
			ids := map[string][]uint32{}
			for _, g := range encs[v.Name] {
				ids[g.Name] = g.IDs
				text, ok := texts[g.Name]
				if !ok {
					t.Fatalf("no text %q", g.Name)
				}
				checkIDs(t, tk, g.Name, tk.Encode(text), g.IDs)
				checkIDs(t, tk, g.Name+" (no special tokens)", tk.EncodeWith(text, EncodeOptions{NoSpecialTokens: true}), g.IDsPlain)
			}
			for _, g := range decs[v.Name] {
				seq := g.IDs
				if seq == nil {
					seq = ids[g.Name]
				}
				if got := tk.Decode(seq, g.SkipSpecial); got != g.Text {
					t.Errorf("%s skip=%v: Decode = %q, want %q", g.Name, g.SkipSpecial, got, g.Text)
				}
				if got := streamAll(tk, seq, g.SkipSpecial); got != g.Text {
					t.Errorf("%s skip=%v: stream = %q, want %q", g.Name, g.SkipSpecial, got, g.Text)
				}
				if g.IDs != nil { // the short sequences made for decoding
					checkStreamPrefixes(t, tk, seq, g.SkipSpecial)
				}
			}
		})
	}
}

func checkIDs(t *testing.T, tk *Tokenizer, name string, got, want []uint32) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-3)
	t.Errorf("%s: ids differ at %d:\n got  %s\n want %s", name, i,
		describe(tk, got[lo:min(len(got), i+5)]), describe(tk, want[lo:min(len(want), i+5)]))
}

// TestGoldenModelLoad checks that a file loads exactly when tokenizers
// loads it, and that a refusal is ErrBadInput.
func TestGoldenModelLoad(t *testing.T) {
	cases := decodeJSONFile[[]modelVariant](t, filepath.Join("testdata", "model_load_cases.json"))
	type outcome struct {
		Name  string `json:"name"`
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	want := map[string]outcome{}
	for _, o := range readJSONL[outcome](t, filepath.Join("testdata", "golden_model_load.jsonl")) {
		want[o.Name] = o
	}
	data, err := fixtureJSON["llava-1.5"]()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		w, ok := want[c.Name]
		if !ok {
			t.Fatalf("%s: no golden", c.Name)
		}
		_, err := FromJSON(patchJSON(t, data, c.Patch))
		switch {
		case w.OK && err != nil:
			t.Errorf("%s: %v; tokenizers loads it", c.Name, err)
		case !w.OK && !errors.Is(err, ErrBadInput):
			t.Errorf("%s: err = %v, want ErrBadInput (tokenizers: %s)", c.Name, err, w.Error)
		}
	}
}
