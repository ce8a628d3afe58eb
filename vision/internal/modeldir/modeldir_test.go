package modeldir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmgate/mmgate/vision"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"model_type": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	apply := func(name string) func([]byte) error {
		return func(b []byte) error { got = append(got, name+"="+string(b)); return nil }
	}
	err := Read(dir, File{"a.json", true, apply("a")}, File{"missing.json", false, apply("m")})
	if err != nil || len(got) != 1 {
		t.Errorf("Read: %v, %v", err, got)
	}
	if err := Read(dir, File{"missing.json", true, apply("m")}); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("missing required file: err = %v", err)
	}
	boom := errors.New("boom")
	if err := Read(dir, File{"a.json", true, func([]byte) error { return boom }}); !errors.Is(err, boom) {
		t.Errorf("apply error: err = %v", err)
	}
}

func TestModelTypeAndExtraTokens(t *testing.T) {
	if mt, err := ModelType([]byte(`{"model_type": "internvl", "x": 1}`)); err != nil || mt != "internvl" {
		t.Errorf("ModelType = %q, %v", mt, err)
	}
	if _, err := ModelType([]byte(`[`)); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("bad JSON: err = %v", err)
	}
	a, b, c := "A", "B", "C"
	err := ExtraTokens([]byte(`{"extra_special_tokens": {"a": "<a>", "b": null}}`), map[string]*string{"a": &a, "b": &b, "c": &c})
	if err != nil || a != "<a>" || b != "B" || c != "C" {
		t.Errorf("ExtraTokens: %v, %q %q %q", err, a, b, c)
	}
	for _, bad := range []string{`{"extra_special_tokens": {"a": ""}}`, `{"extra_special_tokens": {"a": 3}}`, `{"extra_special_tokens": 3}`} {
		if err := ExtraTokens([]byte(bad), map[string]*string{"a": &a}); !errors.Is(err, vision.ErrBadOptions) {
			t.Errorf("%s: err = %v", bad, err)
		}
	}
}
