package planar

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmgate/mmgate/imaging/resample"
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

func TestRawConfigResolve(t *testing.T) {
	d := Defaults{Mean: clipMean, Std: clipStd, Resample: resample.Bicubic}
	var r RawConfig
	if err := DecodeStrict([]byte(`{"image_mean": 0.5, "image_std": [0.25], "resample": 2, "do_rescale": false}`), &r); err != nil {
		t.Fatal(err)
	}
	p, err := r.Norm(d)
	if err != nil {
		t.Fatal(err)
	}
	if p.Mean != half || p.Std != [3]float64{0.25, 0.25, 0.25} || p.DoRescale || !p.DoNormalize || p.Rescale != DefaultRescale {
		t.Errorf("norm %+v", p)
	}
	if f, err := r.Filter(d); err != nil || f != resample.Bilinear {
		t.Errorf("filter %v, %v", f, err)
	}
	var empty RawConfig
	if p, err := empty.Norm(d); err != nil || p.Mean != clipMean || p.Std != clipStd || !p.DoRescale {
		t.Errorf("defaults: %+v, %v", p, err)
	}
	if f, err := empty.Filter(d); err != nil || f != resample.Bicubic {
		t.Errorf("default filter %v, %v", f, err)
	}
	for _, bad := range []string{`{"resample": 9}`, `{"image_std": [1, 2]}`, `{"image_std": 0}`, `{"rescale_factor": 0}`, `{"image_mean": "x"}`} {
		var r RawConfig
		if err := DecodeStrict([]byte(bad), &r); err != nil {
			t.Fatal(err)
		}
		_, e1 := r.Norm(d)
		_, e2 := r.Filter(d)
		if e1 == nil && e2 == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if err := DecodeStrict([]byte(`{} {}`), &r); err == nil {
		t.Error("trailing data accepted")
	}
}

func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFiles(dir); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("no preprocessor_config.json: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "preprocessor_config.json"), []byte(`{"a": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFiles(dir)
	if err != nil || string(f.Preprocessor) != `{"a": 1}` || f.Processor != nil || f.Tokenizer != nil || f.Model != nil {
		t.Fatalf("%+v, %v", f, err)
	}
	if err := os.Mkdir(filepath.Join(dir, "config.json"), 0o755); err != nil {
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
}
