package hfconfig

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmgate/mmgate/vision"
)

func TestParseSize(t *testing.T) {
	def := Size{ShortestEdge: 224}
	tests := []struct {
		raw    string
		square bool
		want   Size
		err    bool
	}{
		{``, false, def, false},
		{`null`, true, def, false},
		{`336`, false, Size{ShortestEdge: 336}, false},
		{`896`, true, Size{Height: 896, Width: 896}, false},
		{`{"shortest_edge": 336}`, false, Size{ShortestEdge: 336}, false},
		{`{"height": 896, "width": 448}`, true, Size{Height: 896, Width: 448}, false},
		{`{"shortest_edge": 3.5}`, false, def, true},
		{`"big"`, false, def, true},
		{`-4`, false, def, true},
	}
	for _, tc := range tests {
		got, err := ParseSize("size", json.RawMessage(tc.raw), tc.square, def)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("%q square=%v: %+v, %v; want %+v, error %v", tc.raw, tc.square, got, err, tc.want, tc.err)
		}
		if err != nil && !errors.Is(err, vision.ErrBadOptions) {
			t.Errorf("%q: error %v does not wrap ErrBadOptions", tc.raw, err)
		}
	}
}

func TestFields(t *testing.T) {
	def := [3]float64{1, 2, 3}
	for _, tc := range []struct {
		raw  string
		want [3]float64
		err  bool
	}{
		{``, def, false}, {`null`, def, false}, {`0.5`, [3]float64{0.5, 0.5, 0.5}, false},
		{`[0.25]`, [3]float64{0.25, 0.25, 0.25}, false}, {`[1, 2, 4]`, [3]float64{1, 2, 4}, false},
		{`[1, 2]`, def, true}, {`"x"`, def, true},
	} {
		got, err := MeanStd("image_mean", json.RawMessage(tc.raw), def)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("MeanStd(%q) = %v, %v", tc.raw, got, err)
		}
	}
	for _, tc := range []struct {
		v    *float64
		want int
		err  bool
	}{{nil, 7, false}, {ptr(3), 3, false}, {ptr(3.5), 0, true}, {ptr(-1), 0, true}, {ptr(1 << 41), 0, true}} {
		got, err := Int("n", tc.v, 7)
		if (err != nil) != tc.err || got != tc.want || (err != nil && !errors.Is(err, vision.ErrBadOptions)) {
			t.Errorf("Int(%v) = %d, %v", tc.v, got, err)
		}
	}
	yes := true
	if !Bool(nil, true) || Bool(nil, false) || !Bool(&yes, false) {
		t.Error("Bool")
	}
	if First("", "b", "c") != "b" || First() != "" {
		t.Error("First")
	}
}

func ptr(f float64) *float64 { return &f }

func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFiles(dir); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("no preprocessor_config.json: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, PreprocessorFile), []byte(`{"a": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFiles(dir)
	if err != nil || string(f.Preprocessor) != `{"a": 1}` || f.Processor != nil || f.Tokenizer != nil || f.Model != nil {
		t.Fatalf("%+v, %v", f, err)
	}
	if err := os.Mkdir(filepath.Join(dir, ModelFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFiles(dir); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("unreadable config.json: %v", err)
	}
	var v map[string]any
	if err := Decode("x.json", nil, &v); err != nil || v != nil {
		t.Errorf("absent: %v, %v", v, err)
	}
	if err := Decode("x.json", []byte("{"), &v); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("bad: %v", err)
	}
	if err := Decode("x.json", []byte(`{"a": 1}`), &v); err != nil || v["a"] != 1.0 {
		t.Errorf("ok: %v, %v", v, err)
	}
	if err := DecodeStrict([]byte(`{} {}`), &v); err == nil {
		t.Error("trailing data accepted")
	}
}

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
