package builtin

import (
	"errors"
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/family"
)

// The built-in list, in order. Changing the order or a family's claims
// changes which family serves a model: this test must be updated on
// purpose.
func TestBuiltinOrder(t *testing.T) {
	type entry struct {
		name                  string
		types, archs, presets []string
	}
	want := []entry{
		{"qwen2-vl", []string{"qwen2_vl"}, []string{"Qwen2VLForConditionalGeneration"}, []string{"qwen2-vl"}},
		{"qwen2.5-vl", []string{"qwen2_5_vl"}, []string{"Qwen2_5_VLForConditionalGeneration"}, []string{"qwen2.5-vl"}},
		{"qwen3-vl", []string{"qwen3_vl", "qwen3_vl_moe"}, []string{"Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration"}, []string{"qwen3-vl"}},
	}
	var got []entry
	for _, f := range New().Families() {
		got = append(got, entry{f.Name(), f.ModelTypes(), f.Architectures(), f.Presets()})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("built-in families\n got %+v\nwant %+v", got, want)
	}
}

// Which family serves which config.json, through the built-in registry.
func TestBuiltinMatches(t *testing.T) {
	r := New()
	for _, tc := range []struct {
		modelType string
		archs     []string
		want      string
	}{
		{"qwen2_vl", nil, "qwen2-vl"},
		{"qwen2_5_vl", []string{"Qwen3VLForConditionalGeneration"}, "qwen2.5-vl"},
		{"qwen3_vl", nil, "qwen3-vl"},
		{"qwen3_vl_moe", nil, "qwen3-vl"},
		{"custom", []string{"Qwen2_5_VLForConditionalGeneration"}, "qwen2.5-vl"},
		{"", []string{"Qwen3VLMoeForConditionalGeneration"}, "qwen3-vl"},
	} {
		f, err := r.Match(tc.modelType, tc.archs)
		if err != nil || f.Name() != tc.want {
			t.Errorf("Match(%q, %v) = %v, %v; want %s", tc.modelType, tc.archs, f, err, tc.want)
		}
	}
	_, err := r.Match("llava", []string{"LlavaForConditionalGeneration"})
	want := `family: model_type "llava" (architectures [LlavaForConditionalGeneration]) is not supported; supported model types: qwen2_vl, qwen2_5_vl, qwen3_vl, qwen3_vl_moe`
	if !errors.Is(err, family.ErrUnknownModel) || err.Error() != want {
		t.Errorf("unknown model: %v\nwant %s", err, want)
	}
	if New() == New() {
		t.Error("New returns a shared registry")
	}
}
