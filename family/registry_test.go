package family

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/hfconfig"
)

// fakeFamily matches by its lists and loads nothing.
type fakeFamily struct {
	name           string
	types, archs   []string
	presets        []string
	loaded         *Config
	errOnLoad      error
	modelOnSuccess Model
}

func (f *fakeFamily) Name() string            { return f.name }
func (f *fakeFamily) ModelTypes() []string    { return f.types }
func (f *fakeFamily) Architectures() []string { return f.archs }
func (f *fakeFamily) Presets() []string       { return f.presets }
func (f *fakeFamily) Load(c *Config) (Model, error) {
	f.loaded = c
	return f.modelOnSuccess, f.errOnLoad
}

func fakes() (a, b, c *fakeFamily, r *Registry) {
	a = &fakeFamily{name: "a", types: []string{"alpha", "shared"}, archs: []string{"AlphaForCausalLM"}, presets: []string{"alpha-1"}}
	b = &fakeFamily{name: "b", types: []string{"beta", "shared"}, archs: []string{"BetaModel", "SharedArch"}}
	c = &fakeFamily{name: "c", types: []string{"gamma"}, archs: []string{"SharedArch", "GammaModel"}, presets: []string{"gamma-1"}}
	return a, b, c, NewRegistry(a, nil, b, c)
}

func TestMatch(t *testing.T) {
	a, b, c, r := fakes()
	cases := []struct {
		name      string
		modelType string
		archs     []string
		want      Family
	}{
		{"model type", "beta", nil, b},
		{"model type wins over architectures", "gamma", []string{"AlphaForCausalLM"}, c},
		{"every family by model type before any by architecture", "beta", []string{"AlphaForCausalLM"}, b},
		{"first family in order for a shared model type", "shared", nil, a},
		{"architecture when the model type is unknown", "alpha_custom", []string{"GammaModel"}, c},
		{"first family in order for a shared architecture", "", []string{"SharedArch"}, b},
		{"family order, not the config's architecture order", "", []string{"GammaModel", "BetaModel"}, b},
		{"any architecture of the list", "x", []string{"Unknown", "AlphaForCausalLM"}, a},
	}
	for _, tc := range cases {
		got, err := r.Match(tc.modelType, tc.archs)
		if err != nil || got != tc.want {
			t.Errorf("%s: Match(%q, %v) = %v, %v; want family %s", tc.name, tc.modelType, tc.archs, got, err, tc.want.Name())
		}
	}
}

func TestUnknownModel(t *testing.T) {
	_, _, _, r := fakes()
	_, err := r.Match("llama", []string{"LlamaForCausalLM"})
	var ue *UnknownModelError
	if !errors.As(err, &ue) || !errors.Is(err, ErrUnknownModel) || !errors.Is(err, vision.ErrUnsupported) {
		t.Fatalf("err = %v, want an *UnknownModelError wrapping ErrUnknownModel and vision.ErrUnsupported", err)
	}
	want := `family: model_type "llama" (architectures [LlamaForCausalLM]) is not supported; supported model types: alpha, shared, beta, gamma`
	if err.Error() != want {
		t.Errorf("message %q\nwant     %q", err.Error(), want)
	}
	if !reflect.DeepEqual(ue.Supported, []string{"alpha", "shared", "beta", "gamma"}) {
		t.Errorf("supported = %v", ue.Supported)
	}
	if _, err := NewRegistry().Match("", nil); !errors.Is(err, ErrUnknownModel) || !strings.Contains(err.Error(), "supported model types: ") {
		t.Errorf("empty registry: %v", err)
	}
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadAndOpen(t *testing.T) {
	a, b, c, r := fakes()
	dir := writeConfig(t, `{"architectures": ["BetaModel"], "model_type": "beta_v2", "x": 1}`)
	if _, err := r.Load(dir); err != nil || b.loaded == nil || b.loaded.Dir != dir || b.loaded.ModelType != "beta_v2" ||
		!reflect.DeepEqual(b.loaded.Architectures, []string{"BetaModel"}) || !strings.Contains(string(b.loaded.JSON), `"x": 1`) {
		t.Fatalf("Load: %v, config %+v", err, b.loaded)
	}
	if _, err := r.Open(dir); err != nil {
		t.Errorf("Open(folder): %v", err)
	}
	if _, err := r.Open("GAMMA-1"); err != nil || c.loaded.Preset != "gamma-1" || c.loaded.Dir != "" || c.loaded.ModelType != "gamma" {
		t.Errorf("Open(preset): %v, %+v", err, c.loaded)
	}
	a.errOnLoad = errors.New("boom")
	if _, err := r.Open("alpha-1"); err == nil || err.Error() != "boom" {
		t.Errorf("a family's load error: %v", err)
	}
	_, err := r.Open(filepath.Join(dir, "missing"))
	if !errors.Is(err, ErrUnknownModel) || !strings.Contains(err.Error(), "(alpha-1, gamma-1)") {
		t.Errorf("Open(missing) = %v", err)
	}
	for name, body := range map[string]string{"not JSON": "{", "a list": "[]", "two objects": "{} {}", "a number model type": `{"model_type": 3}`} {
		if _, err := r.Load(writeConfig(t, body)); !errors.Is(err, ErrBadConfig) || !errors.Is(err, vision.ErrBadOptions) {
			t.Errorf("%s: err = %v, want ErrBadConfig", name, err)
		}
	}
	if _, err := r.Load(t.TempDir()); !errors.Is(err, ErrBadConfig) {
		t.Errorf("no config.json: %v", err)
	}
	if _, err := r.Load(writeConfig(t, `{"model_type": "llama"}`)); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("unknown model: %v", err)
	}
}

func TestRegistryLists(t *testing.T) {
	_, _, _, r := fakes()
	var names []string
	for _, f := range r.Families() {
		names = append(names, f.Name())
	}
	if !reflect.DeepEqual(names, []string{"a", "b", "c"}) {
		t.Errorf("families %v (nil dropped, order kept)", names)
	}
	if got := r.Presets(); !reflect.DeepEqual(got, []string{"alpha-1", "gamma-1"}) {
		t.Errorf("presets %v", got)
	}
}

func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{`{"model_type": "qwen3_vl", "architectures": ["Qwen3VLForConditionalGeneration"]}`,
		`{}`, `null`, `[]`, `{"model_type": null}`, `{"architectures": [1]}`, `{"model_type": "a"} x`} {
		f.Add([]byte(s))
	}
	_, _, _, r := fakes()
	f.Fuzz(func(t *testing.T, data []byte) {
		if DeclaresMedia(data) {
			if _, err := hfconfig.TokenScopes(data); err != nil {
				t.Fatalf("%q declares media but is not a JSON object: %v", data, err)
			}
		}
		c, err := ParseConfig(data)
		if err != nil {
			if !errors.Is(err, ErrBadConfig) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if _, err := r.Match(c.ModelType, c.Architectures); err != nil && !errors.Is(err, ErrUnknownModel) {
			t.Fatalf("match: untyped error %v", err)
		}
	})
}

func TestDeclaresMedia(t *testing.T) {
	for _, tc := range []struct {
		config string
		want   bool
	}{
		{`{"model_type": "qwen3"}`, false},
		{`{"model_type": "llama", "text_config": {"vocab_size": 3}, "image_token_id": null}`, false},
		{`{"image_token_id": 5}`, true},
		{`{"image_token_index": 32000}`, true},
		{`{"text_config": {"video_token_id": 7}}`, true},
		{`{"thinker_config": {"audio_token_id": 7}}`, true},
		{`{"boi_token_index": 255999}`, true},
		{`{"vision_config": {}}`, true},
		{`{"audio_config": null}`, false},
		{`[1, 2]`, false},
		{`{`, false},
	} {
		if got := DeclaresMedia([]byte(tc.config)); got != tc.want {
			t.Errorf("%s: %v", tc.config, got)
		}
	}
}

// A registry with a fallback loads a folder no family claims with it when
// the config declares no media, and still refuses one that does.
func TestFallback(t *testing.T) {
	a, _, _, r := fakes()
	fb := &fakeFamily{name: "text"}
	rf := r.WithFallback(fb)
	if rf.Fallback() != fb || r.Fallback() != nil || len(rf.Families()) != 3 {
		t.Fatalf("fallback %v / %v, families %d", rf.Fallback(), r.Fallback(), len(rf.Families()))
	}
	dir := t.TempDir()
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"model_type": "llama"}`)
	if _, err := rf.Load(dir); err != nil || fb.loaded == nil || fb.loaded.ModelType != "llama" || fb.loaded.Dir != dir {
		t.Errorf("text model: %v, loaded %+v", err, fb.loaded)
	}
	if _, err := r.Load(dir); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("without a fallback: %v", err)
	}
	write(`{"model_type": "llama", "image_token_id": 3}`)
	var ue *UnknownModelError
	if _, err := rf.Load(dir); !errors.As(err, &ue) {
		t.Errorf("media model: %v", err)
	}
	write(`{"model_type": "alpha"}`)
	if _, err := rf.Load(dir); err != nil || a.loaded == nil {
		t.Errorf("claimed model: %v", err)
	}
}
