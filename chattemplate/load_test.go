package chattemplate

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadSelect(t *testing.T) {
	qwen2 := t.TempDir()
	copyFile(t, "testdata/qwen2-vl.jinja", filepath.Join(qwen2, "chat_template.jinja"))
	copyFile(t, "testdata/qwen3_tokenizer_config.json", filepath.Join(qwen2, "tokenizer_config.json"))

	qwen3 := t.TempDir()
	copyFile(t, "testdata/qwen3-vl-instruct.jinja", filepath.Join(qwen3, "chat_template.jinja"))
	copyFile(t, "testdata/qwen3_tokenizer_config.json", filepath.Join(qwen3, "tokenizer_config.json"))

	noTools := t.TempDir()
	copyFile(t, "testdata/qwen2-vl.jinja", filepath.Join(noTools, "chat_template.jinja"))

	jsonOnly := t.TempDir()
	if err := os.WriteFile(filepath.Join(jsonOnly, "chat_template.json"), []byte(`{"chat_template": "{{ tools | length }}"}`), 0o644); err != nil {
		t.Fatal(err)
	}

	s2, err := Load(qwen2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s2.Select(false); got != s2.Processor {
		t.Error("qwen2 without tools: want the processor template")
	}
	if got, _ := s2.Select(true); got != s2.Tokenizer || got == nil {
		t.Error("qwen2 with tools: want the tokenizer template")
	}
	s3, err := Load(qwen3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s3.Select(true); got != s3.Processor {
		t.Error("qwen3-vl with tools: want the processor template (it handles tools)")
	}
	sn, err := Load(noTools, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sn.Select(true); !errors.Is(err, ErrUnsupported) {
		t.Errorf("no tool template: err = %v, want ErrUnsupported", err)
	}
	sj, err := Load(jsonOnly, Options{})
	if err != nil || sj.Processor == nil || !sj.Processor.MentionsTools() {
		t.Fatalf("chat_template.json: %v", err)
	}
	if _, err := Load(t.TempDir(), Options{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("empty folder: err = %v, want ErrUnsupported", err)
	}

	// The tokenizer's special tokens are globals.
	tm := s2.Tokenizer
	g := tm.globals
	if v, ok := g["eos_token"]; !ok || v.AsString() != "<|im_end|>" {
		t.Errorf("eos_token global = %v", v)
	}
	if _, ok := g["bos_token"]; ok {
		t.Error("bos_token is null in tokenizer_config and must be undefined")
	}
}

func TestGlobalsAndKwargs(t *testing.T) {
	tm, err := Compile(`{{ bos_token }}|{{ eos_token }}|{{ add_vision_id }}`, Options{Globals: Object{{"bos_token", "<s>"}, {"eos_token", "</s>"}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := tm.Render(Input{Kwargs: Object{{"eos_token", "<end>"}, {"add_vision_id", true}}})
	if err != nil || got != "<s>|<end>|True" {
		t.Errorf("got %q, %v", got, err)
	}
}

// TestLoadCompressed: a folder whose files are gzip-compressed (as the
// fixture folders keep tokenizer_config.json.gz beside tokenizer.json.gz)
// gives the same template and special tokens as the plain file.
func TestLoadCompressed(t *testing.T) {
	b, err := os.ReadFile("testdata/qwen3_tokenizer_config.json")
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	packed := filepath.Join(t.TempDir(), "tokenizer_config.json")
	if err := os.WriteFile(packed+".gz", z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := readTokenizerConfig("testdata/qwen3_tokenizer_config.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := readTokenizerConfig(packed)
	if err != nil {
		t.Fatal(err)
	}
	if got.defaultTemplate == "" || !reflect.DeepEqual(got, want) {
		t.Errorf("compressed config differs: template %d bytes, %d specials; want %d, %d",
			len(got.defaultTemplate), len(got.specials), len(want.defaultTemplate), len(want.specials))
	}
}
