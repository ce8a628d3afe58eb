package builtin

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/vision"
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
		{"qwen3-vl", []string{"qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe"}, []string{"Qwen3VLForConditionalGeneration",
			"Qwen3VLMoeForConditionalGeneration", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"}, []string{"qwen3-vl"}},
		{"gemma3", []string{"gemma3"}, []string{"Gemma3ForConditionalGeneration"}, nil},
		{"llava", []string{"llava"}, []string{"LlavaForConditionalGeneration"}, nil},
		{"llava-next", []string{"llava_next"}, []string{"LlavaNextForConditionalGeneration"}, nil},
		{"internvl", []string{"internvl"}, []string{"InternVLForConditionalGeneration"}, nil},
		{"glm4v", []string{"glm4v", "glm4v_moe"}, []string{"Glm4vForConditionalGeneration", "Glm4vMoeForConditionalGeneration"}, nil},
	}
	var got []entry
	for _, f := range New().Families() {
		got = append(got, entry{f.Name(), f.ModelTypes(), f.Architectures(), f.Presets()})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("built-in families\n got %+v\nwant %+v", got, want)
	}
	if f := New().Fallback(); f == nil || f.Name() != "text" || len(f.ModelTypes()) != 0 {
		t.Errorf("fallback %v", f)
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
		{"qwen3_5", nil, "qwen3-vl"},
		{"qwen3_5_moe", nil, "qwen3-vl"},
		{"gemma3", []string{"Gemma3ForConditionalGeneration"}, "gemma3"},
		{"llava", nil, "llava"},
		{"llava_next", []string{"LlavaForConditionalGeneration"}, "llava-next"},
		{"", []string{"LlavaNextForConditionalGeneration"}, "llava-next"},
		{"internvl", nil, "internvl"},
		{"internvl_chat", []string{"InternVLForConditionalGeneration"}, "internvl"},
		{"glm4v", nil, "glm4v"},
		{"glm4v_moe", nil, "glm4v"},
		{"custom", []string{"Glm4vMoeForConditionalGeneration"}, "glm4v"},
	} {
		f, err := r.Match(tc.modelType, tc.archs)
		if err != nil || f.Name() != tc.want {
			t.Errorf("Match(%q, %v) = %v, %v; want %s", tc.modelType, tc.archs, f, err, tc.want)
		}
	}
	_, err := r.Match("idefics3", []string{"Idefics3ForConditionalGeneration"})
	want := `family: model_type "idefics3" (architectures [Idefics3ForConditionalGeneration]) is not supported; supported model types: ` +
		`qwen2_vl, qwen2_5_vl, qwen3_vl, qwen3_vl_moe, qwen3_5, qwen3_5_moe, gemma3, llava, llava_next, internvl, glm4v, glm4v_moe`
	if !errors.Is(err, family.ErrUnknownModel) || err.Error() != want {
		t.Errorf("unknown model: %v\nwant %s", err, want)
	}
	if New() == New() {
		t.Error("New returns a shared registry")
	}
}

// A model folder no family claims is served text only when its config.json
// declares no media (Qwen text models keep their Hermes output format); one
// that does declare media is refused, naming the supported model types.
func TestTextFallback(t *testing.T) {
	r := New()
	for _, tc := range []struct {
		config string
		want   family.OutputFormat
	}{
		{`{"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"], "eos_token_id": 151645}`, family.HermesOutput()},
		{`{"model_type": "qwen2_moe"}`, family.HermesOutput()},
		{`{"model_type": "llama", "architectures": ["LlamaForCausalLM"], "text_config": {"vocab_size": 5}}`, family.OutputFormat{}},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(tc.config), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := r.Load(dir)
		if err != nil {
			t.Fatalf("%s: %v", tc.config, err)
		}
		if m.Family().Name() != "text" || len(m.Modalities()) != 0 || m.Output() != tc.want {
			t.Errorf("%s: family %s, modalities %v, output %+v", tc.config, m.Family().Name(), m.Modalities(), m.Output())
		}
		if _, err := m.ImageProcessor(vision.ProcessorOptions{}); !errors.Is(err, vision.ErrUnsupported) {
			t.Errorf("%s: image processor: %v", tc.config, err)
		}
		if sp, err := m.Specials(nil); err != nil || len(sp.Pad) != 0 {
			t.Errorf("%s: specials %+v, %v", tc.config, sp, err)
		}
		if _, err := m.CheckReceived(family.Received{Modality: vision.Image}); err == nil {
			t.Errorf("%s: a text model accepted an image", tc.config)
		}
	}
	for _, config := range []string{
		`{"model_type": "idefics3", "image_token_id": 49190}`,
		`{"model_type": "smolvlm", "vision_config": {"patch_size": 16}}`,
		`{"model_type": "mllama", "text_config": {"image_token_index": 128256}}`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := r.Load(dir)
		var ue *family.UnknownModelError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "supported model types: qwen2_vl, ") || !strings.Contains(err.Error(), "glm4v_moe") {
			t.Errorf("%s: %v", config, err)
		}
	}
}
