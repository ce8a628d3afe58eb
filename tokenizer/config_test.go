package tokenizer

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLoadConfigQwen3(t *testing.T) {
	dir := filepath.Join("testdata", "qwen3")
	c, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.EOSToken != "<|im_end|>" || c.PadToken != "<|endoftext|>" || c.BOSToken != "" || c.AddBOSToken {
		t.Errorf("tokens: %+v", c)
	}
	if !strings.Contains(c.ChatTemplate, "<|im_start|>") || c.ChatTemplates["default"] != c.ChatTemplate {
		t.Error("chat template missing")
	}
	if c.GenerationEOSTokenIDs != nil {
		t.Errorf("generation eos = %v, want none (no generation_config.json)", c.GenerationEOSTokenIDs)
	}
	// config.json of Qwen3-VL keeps its ids under text_config.
	if !slices.Equal(c.ModelEOSTokenIDs, []uint32{151645}) || c.BOSTokenID == nil || *c.BOSTokenID != 151643 {
		t.Errorf("model ids: eos %v bos %v", c.ModelEOSTokenIDs, c.BOSTokenID)
	}
	tk := loadQwen3(t)
	if got := c.StopTokenIDs(tk); !slices.Equal(got, []uint32{151645}) {
		t.Errorf("StopTokenIDs = %v", got)
	}
}

func TestLoadConfigVariants(t *testing.T) {
	c, err := LoadConfig(filepath.Join("testdata", "config_list"))
	if err != nil {
		t.Fatal(err)
	}
	if c.BOSToken != "<s>" || c.EOSToken != "</s>" || c.PadToken != "" || !c.AddBOSToken || !c.CleanUpTokenizationSpaces {
		t.Errorf("tokens: %+v", c)
	}
	if c.ChatTemplate != "{{ messages }}" || c.ChatTemplates["tool_use"] != "{{ tools }}" {
		t.Errorf("templates: %q %v", c.ChatTemplate, c.ChatTemplates)
	}
	if !slices.Equal(c.GenerationEOSTokenIDs, []uint32{2, 32000}) || !slices.Equal(c.ModelEOSTokenIDs, []uint32{2}) {
		t.Errorf("eos: %v %v", c.GenerationEOSTokenIDs, c.ModelEOSTokenIDs)
	}
	if got := c.StopTokenIDs(nil); !slices.Equal(got, []uint32{2, 32000}) {
		t.Errorf("StopTokenIDs = %v", got)
	}

	empty, err := LoadConfig(t.TempDir())
	if err != nil || empty.EOSToken != "" || empty.ModelEOSTokenIDs != nil {
		t.Errorf("empty dir: %+v %v", empty, err)
	}

	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "generation_config.json"), []byte(`{"eos_token_id": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(bad); !errors.Is(err, ErrBadInput) {
		t.Errorf("bad eos id: err = %v, want ErrBadInput", err)
	}
}
