package demomodel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestMaterialize(t *testing.T) {
	dir, err := Materialize(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"config.json", "tokenizer.json", "tokenizer_config.json", "preprocessor_config.json", "video_preprocessor_config.json", "chat_template.jinja"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %v", name, err)
		}
		if filepath.Ext(name) == ".json" && !json.Valid(b) {
			t.Errorf("%s is not valid JSON", name)
		}
	}
	var cfg struct {
		ModelType string `json:"model_type"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "config.json"))
	if json.Unmarshal(b, &cfg); cfg.ModelType != "qwen3_vl" {
		t.Errorf("model_type %q", cfg.ModelType)
	}
}
