// Package familytest holds what the model families' tests share: loading a
// fixture model folder (testdata/models at the repository root) through a
// registry, and running a family's CheckReceived on an accepted item and on
// broken variants of it. Only tests import it.
package familytest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/chattemplate"
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tokenizer"
	"github.com/mmgate/mmgate/tokenizer/tokenizertest"
	"github.com/mmgate/mmgate/vision"
)

// Load materialises the fixture folder name (tokenizertest.ModelDir) and
// loads it with the registry of fams; it returns the model, its folder and
// its tokenizer.
func Load(t testing.TB, name string, fams ...family.Family) (family.Model, string, *tokenizer.Tokenizer) {
	t.Helper()
	dir := Fixture(t, name)
	m, err := family.NewRegistry(fams...).Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m, dir, tokenizertest.Model(t, name)
}

// Patch rewrites the JSON object in dir/file with the keys of kv set.
func Patch(t testing.TB, dir, file string, kv map[string]any) {
	t.Helper()
	path := filepath.Join(dir, file)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range kv {
		m[k] = v
	}
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Broken is a variant of an accepted item and the text its error must
// hold (an alias, so that tests list cases without field names).
type Broken = struct {
	Name string
	Mod  func(r *family.Received)
	Want string
}

// CheckReceived runs m.CheckReceived on good(), which must pass with the
// summary head and notes given, then on each broken variant, which must
// fail with an error holding its Want.
func CheckReceived(t *testing.T, m family.Model, good func() family.Received, head string, notes []string, broken []Broken) {
	t.Helper()
	s, err := m.CheckReceived(good())
	if err != nil || s.Head != head || strings.Join(s.Notes, "; ") != strings.Join(notes, "; ") {
		t.Errorf("good item: %+v, %v; want head %q notes %q", s, err, head, notes)
	}
	for _, b := range broken {
		r := good()
		b.Mod(&r)
		if _, err := m.CheckReceived(r); err == nil || !strings.Contains(err.Error(), b.Want) {
			t.Errorf("%s: err = %v, want %q", b.Name, err, b.Want)
		}
	}
}

// Sizes checks that m's CheckReceived takes the item's row of its flat
// input's sizes tensor name, as a protocol that joins items (vLLM, SGLang)
// gives it: accepted when it is good's dim 0 (rows), refused when another
// value or not int64.
func Sizes(t *testing.T, m family.Model, good func() family.Received, name string, rows int) {
	t.Helper()
	for _, tc := range []struct {
		t    family.NamedTensor
		want string
	}{
		{family.Int64Tensor(name, []int{1}, int64(rows)), ""},
		{family.Int64Tensor(name, []int{1}, int64(rows-1)), fmt.Sprintf("%s %d for encoder_input shape", name, rows-1)},
		{family.Float32Tensor(name, float32(rows)), "want 1 int64 values"},
	} {
		r := good()
		r.Side = append(r.Side, tc.t)
		_, err := m.CheckReceived(r)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s %v %v: err = %v, want %q", name, tc.t.DType, tc.t.Data, err, tc.want)
		}
	}
}

// Planned loads the fixture folder name with fams (Load), checks that the
// family called fam loaded it, looks the model's special tokens up in its
// tokenizer and plans a w×h image with its image processor.
func Planned(t testing.TB, name, fam string, w, h int, fams ...family.Family) (family.Model, *prompt.Specials, vision.Plan) {
	t.Helper()
	m, _, tok := Load(t, name, fams...)
	if m.Family().Name() != fam {
		t.Errorf("%s: loaded by family %s, want %s", name, m.Family().Name(), fam)
	}
	sp, err := m.Specials(tok)
	if err != nil {
		t.Fatal(err)
	}
	return m, sp, PlanImage(t, m, w, h)
}

// PlanImage plans a w×h image with the model's image processor.
func PlanImage(t testing.TB, m family.Model, w, h int) vision.Plan {
	t.Helper()
	p, err := m.ImageProcessor(vision.ProcessorOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.PlanImage(w, h, vision.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// Fixture materialises the fixture folder name (tokenizertest.ModelDir)
// and returns its path.
func Fixture(t testing.TB, name string) string {
	t.Helper()
	return tokenizertest.ModelDir(t, name)
}

// Wire checks what a family says about an item besides its prompt: its
// `mmgate preprocess` extras, its side tensors' names and the layout of its
// modality.
func Wire(t testing.TB, m family.Model, it family.Item, extras []family.Field, side []string, layout family.Layout) {
	t.Helper()
	if got := m.Extras(it); !reflect.DeepEqual(got, extras) {
		t.Errorf("extras %v, want %v", got, extras)
	}
	var names []string
	for _, s := range m.SideTensors(it) {
		names = append(names, s.Name)
	}
	if !reflect.DeepEqual(names, side) {
		t.Errorf("side tensors %v, want %v", names, side)
	}
	if got := m.Layout(it.Modality); !reflect.DeepEqual(got, layout) {
		t.Errorf("layout %+v, want %+v", got, layout)
	}
}

// Structural renders a one-image chat request with the folder's chat
// template and tokenizer (the prompt package's Render, as the gateway
// does) for an image planned at w×h, and returns the prompt's ids and the
// image's structural range.
func Structural(t testing.TB, dir string, m family.Model, w, h int) ([]uint32, prompt.Placeholder) {
	t.Helper()
	tok, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := chattemplate.Load(dir, chattemplate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := set.Select(false)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := m.Specials(tok)
	if err != nil {
		t.Fatal(err)
	}
	req, err := openai.ParseChat([]byte(`{"messages": [{"role": "user", "content": [{"type": "text", "text": "Look:"}, {"type": "image_url", "image_url": {"url": "data:,x"}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := prompt.Build(req, prompt.Options{Specials: sp, StringContent: !tmpl.IteratesContentParts()})
	if err != nil {
		t.Fatal(err)
	}
	e := m.Expansion(family.ImageItem(PlanImage(t, m, w, h)))
	res, err := prompt.Render(tmpl, tok, sp, plan, []prompt.Expansion{e})
	if err != nil {
		t.Fatal(err)
	}
	st, ok := res.Structural(0, e)
	if !ok {
		t.Fatal("no structural range")
	}
	return res.IDs, st
}
