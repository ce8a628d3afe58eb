package gemma3

import (
	"errors"
	"testing"

	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/hfconfig"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
	"github.com/mmgate/mmgate/vision/norm"
)

func fixtureFiles(t testing.TB) hfconfig.Files { return visiontest.Fixture(t, "testdata/gemma3") }

// withPre returns f with keys of preprocessor_config.json replaced.
func withPre(t testing.TB, f hfconfig.Files, kv map[string]any) hfconfig.Files {
	f.Preprocessor = visiontest.Patch(t, f.Preprocessor, kv)
	return f
}

func TestLoadConfigFixture(t *testing.T) {
	cfg, err := LoadConfig("testdata/gemma3")
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Height: 896, Width: 896, Resample: resample.Bilinear,
		Norm:           norm.Params{Rescale: 0.00392156862745098, Mean: half, Std: half, DoRescale: true, DoNormalize: true},
		PanAndScan:     PanAndScan{Enabled: false, MinCropSize: 256, MaxNumCrops: 4, MinRatioToActivate: 1.2},
		ImageSeqLength: 256,
		Tokens: Tokens{BOI: "<start_of_image>", EOI: "<end_of_image>", Image: "<image_soft_token>",
			BOIID: 255999, EOIID: 256000, ImageID: 262144},
	}
	if *cfg != want {
		t.Errorf("config\n%+v\nwant\n%+v", *cfg, want)
	}
}

// Absent files and null values take the class and processor defaults.
func TestParseConfigDefaults(t *testing.T) {
	cfg, err := ParseConfig(hfconfig.Files{Preprocessor: []byte(`{"do_pan_and_scan": true, "image_mean": null}`)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Height != 224 || cfg.Width != 224 || cfg.Resample != resample.Bilinear || cfg.Norm.Mean != half ||
		cfg.Norm.Rescale != norm.DefaultRescale || !cfg.PanAndScan.Enabled || cfg.PanAndScan.MinCropSize != 256 ||
		cfg.ImageSeqLength != 256 || cfg.Tokens.BOI != "<start_of_image>" || cfg.Tokens.ImageID != -1 {
		t.Errorf("defaults: %+v", cfg)
	}
	f := fixtureFiles(t)
	f.Tokenizer = []byte(`{"extra_special_tokens": {"boi_token": "<boi>", "eoi_token": "<eoi>", "image_token": "<img>"}}`)
	cfg, err = ParseConfig(f)
	if err != nil || cfg.Tokens.BOI != "<boi>" || cfg.Tokens.EOI != "<eoi>" || cfg.Tokens.Image != "<img>" {
		t.Errorf("extra_special_tokens: %+v, %v", cfg, err)
	}
}

func TestParseConfigErrors(t *testing.T) {
	f := fixtureFiles(t)
	tests := []struct {
		name string
		f    hfconfig.Files
		want error
	}{
		{"no preprocessor", hfconfig.Files{Model: f.Model}, vision.ErrBadOptions},
		{"bad json", hfconfig.Files{Preprocessor: []byte(`{`)}, vision.ErrBadOptions},
		{"model type", hfconfig.Files{Preprocessor: f.Preprocessor, Model: []byte(`{"model_type": "llava"}`)}, vision.ErrUnsupported},
		{"bad config.json", hfconfig.Files{Preprocessor: f.Preprocessor, Model: []byte(`[]`)}, vision.ErrBadOptions},
		{"no resize", withPre(t, f, map[string]any{"do_resize": false}), vision.ErrUnsupported},
		{"shortest edge", withPre(t, f, map[string]any{"size": map[string]int{"shortest_edge": 896}}), vision.ErrUnsupported},
		{"huge", withPre(t, f, map[string]any{"size": 1 << 20}), vision.ErrBadOptions},
		{"filter", withPre(t, f, map[string]any{"resample": 7}), vision.ErrUnsupported},
		{"std", withPre(t, f, map[string]any{"image_std": []float64{0.5, 0, 0.5}}), vision.ErrBadOptions},
		{"min crop", withPre(t, f, map[string]any{"pan_and_scan_min_crop_size": 0}), vision.ErrBadOptions},
		{"max crops", withPre(t, f, map[string]any{"pan_and_scan_max_num_crops": 0}), vision.ErrBadOptions},
		{"fraction", withPre(t, f, map[string]any{"pan_and_scan_max_num_crops": 2.5}), vision.ErrBadOptions},
		{"seq length", hfconfig.Files{Preprocessor: f.Preprocessor, Processor: []byte(`{"image_seq_length": 0}`)}, vision.ErrBadOptions},
	}
	for _, tc := range tests {
		if _, err := ParseConfig(tc.f); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := LoadConfig(t.TempDir()); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("empty folder: %v", err)
	}
}

// Parsing never panics; what it refuses wraps the package's error kinds.
func FuzzParseConfig(f *testing.F) {
	fx := fixtureFiles(f)
	f.Add(fx.Preprocessor, fx.Processor)
	f.Add([]byte(`{"do_pan_and_scan": true, "pan_and_scan_min_crop_size": 1, "size": 3}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, pre, proc []byte) {
		cfg, err := ParseConfig(hfconfig.Files{Preprocessor: pre, Processor: proc})
		if err != nil {
			visiontest.RequireKind(t, err, vision.ErrBadOptions, vision.ErrUnsupported)
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("accepted an invalid config: %v", err)
		}
	})
}
