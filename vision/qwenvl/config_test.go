package qwenvl

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/vision"
)

// The model folders' files give the presets' values (the presets are the
// published Hub values; the folders carry copies).
func TestLoadConfigFolders(t *testing.T) {
	for _, tc := range []struct{ dir, preset string }{
		{"testdata/qwen2.5-vl", "qwen2.5-vl"},
		{"testdata/qwen3-vl", "qwen3-vl"},
	} {
		got, err := LoadConfig(tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		want := presetMust(t, tc.preset)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v (video %+v)\nwant %+v (video %+v)", tc.dir, *got, got.Video, *want, want.Video)
		}
	}
}

func TestPresets(t *testing.T) {
	tests := []struct {
		name, modelType string
		patch, factor   int
		minPx, maxPx    int
		mean0, std0     float64
		video           bool
	}{
		{"qwen2-vl", ModelQwen2VL, 14, 28, 3136, 12845056, 0.48145466, 0.26862954, false},
		{"qwen2.5-vl", ModelQwen25VL, 14, 28, 3136, 12845056, 0.48145466, 0.26862954, false},
		{"qwen3-vl", ModelQwen3VL, 16, 32, 65536, 16777216, 0.5, 0.5, true},
	}
	for _, tc := range tests {
		p, err := Load(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		c := p.Config()
		if p.ModelType() != tc.modelType || c.PatchSize != tc.patch || c.Factor() != tc.factor ||
			c.MinPixels != tc.minPx || c.MaxPixels != tc.maxPx || c.ImageMean[0] != tc.mean0 ||
			c.ImageStd[0] != tc.std0 || (c.Video != nil) != tc.video || c.TemporalPatchSize != 2 ||
			c.MergeSize != 2 || c.Resample != 3 || c.RescaleFactor != 1.0/255 ||
			!c.DoResize || !c.DoRescale || !c.DoNormalize || !c.DoConvertRGB {
			t.Errorf("%s: %+v", tc.name, c)
		}
	}
	if _, err := PresetConfig("qwen4-vl"); !errors.Is(err, vision.ErrUnsupported) {
		t.Errorf("unknown preset: %v", err)
	}
	if got := Presets(); !reflect.DeepEqual(got, []string{"qwen2-vl", "qwen2.5-vl", "qwen3-vl"}) {
		t.Errorf("Presets = %v", got)
	}
}

func TestVideoConfig(t *testing.T) {
	c, err := LoadConfig("testdata/qwen3-vl")
	if err != nil {
		t.Fatal(err)
	}
	v := c.Video
	if v == nil || v.MinPixels != 4096 || v.MaxPixels != 25165824 || v.FPS != 2 || v.MinFrames != 4 ||
		v.MaxFrames != 768 || !v.DoSampleFrames || v.PatchSize != 16 {
		t.Errorf("video config %+v", v)
	}
	// Class defaults when the file is silent.
	v, err = ParseVideoConfig([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if v.MinPixels != 131072 || v.MaxPixels != 786432 || v.FPS != 2 || v.DoSampleFrames || v.ImageMean[0] != 0.5 {
		t.Errorf("defaults %+v", v)
	}
}

func writeFolder(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestParseImageConfig(t *testing.T) {
	tests := []struct {
		name string
		json string
		want func(c *Config) bool
		err  error
	}{
		{"class defaults", `{}`, func(c *Config) bool {
			return c.MinPixels == 3136 && c.MaxPixels == 1003520 && c.PatchSize == 14 && c.ImageMean == clipMean &&
				c.ImageStd == clipStd && c.RescaleFactor == 1.0/255 && c.DoResize && c.Resample == 3
		}, nil},
		{"size spelling", `{"size": {"shortest_edge": 100, "longest_edge": 2000}}`, func(c *Config) bool {
			return c.MinPixels == 100 && c.MaxPixels == 2000
		}, nil},
		{"min/max win over size", `{"min_pixels": 7, "max_pixels": 9, "size": {"shortest_edge": 100, "longest_edge": 2000}}`,
			func(c *Config) bool { return c.MinPixels == 7 && c.MaxPixels == 9 }, nil},
		{"scalar mean/std, flags", `{"image_mean": 0.25, "image_std": [2], "do_rescale": false, "do_normalize": false,
			"do_resize": false, "do_convert_rgb": false, "rescale_factor": 0.5, "resample": 2}`, func(c *Config) bool {
			return c.ImageMean == [3]float64{0.25, 0.25, 0.25} && c.ImageStd == [3]float64{2, 2, 2} && !c.DoRescale &&
				!c.DoNormalize && !c.DoResize && !c.DoConvertRGB && c.RescaleFactor == 0.5 && c.Resample == 2
		}, nil},
		{"float integers", `{"patch_size": 16.0}`, func(c *Config) bool { return c.PatchSize == 16 }, nil},
		{"bad json", `{"patch_size": `, nil, vision.ErrBadOptions},
		{"trailing", `{} {}`, nil, vision.ErrBadOptions},
		{"fractional", `{"patch_size": 14.5}`, nil, vision.ErrBadOptions},
		{"negative", `{"max_pixels": -1}`, nil, vision.ErrBadOptions},
		{"two means", `{"image_mean": [0.1, 0.2]}`, nil, vision.ErrBadOptions},
		{"mean string", `{"image_mean": "x"}`, nil, vision.ErrBadOptions},
	}
	for _, tc := range tests {
		c, err := ParseImageConfig([]byte(tc.json), ModelQwen25VL)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: err = %v, want %v", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || !tc.want(c) {
			t.Errorf("%s: %+v, %v", tc.name, c, err)
		}
	}
}

func TestLoadConfigModelType(t *testing.T) {
	root := t.TempDir()
	pre := `{"patch_size": 14, "processor_class": "Qwen2VLProcessor"}`
	// No config.json: processor_class decides.
	writeFolder(t, filepath.Join(root, "a"), map[string]string{"preprocessor_config.json": pre})
	c, err := LoadConfig(filepath.Join(root, "a"))
	if err != nil || c.ModelType != ModelQwen2VL {
		t.Errorf("processor_class fallback: %+v, %v", c, err)
	}
	// config.json wins.
	writeFolder(t, filepath.Join(root, "b"), map[string]string{"preprocessor_config.json": pre,
		"config.json": `{"model_type": "qwen3_vl_moe"}`})
	c, err = LoadConfig(filepath.Join(root, "b"))
	if err != nil || c.ModelType != ModelQwen3VLMoE {
		t.Errorf("config.json model_type: %+v, %v", c, err)
	}
	// Unknown model type.
	writeFolder(t, filepath.Join(root, "c"), map[string]string{"preprocessor_config.json": pre,
		"config.json": `{"model_type": "llava"}`})
	if _, err := LoadConfig(filepath.Join(root, "c")); !errors.Is(err, vision.ErrUnsupported) {
		t.Errorf("llava: %v", err)
	}
	// No type at all.
	writeFolder(t, filepath.Join(root, "d"), map[string]string{"preprocessor_config.json": `{}`})
	if _, err := LoadConfig(filepath.Join(root, "d")); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("no model type: %v", err)
	}
	// Missing preprocessor_config.json; broken video config.
	if _, err := LoadConfig(root); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("empty folder: %v", err)
	}
	writeFolder(t, filepath.Join(root, "e"), map[string]string{"preprocessor_config.json": pre,
		"video_preprocessor_config.json": `[`})
	if _, err := LoadConfig(filepath.Join(root, "e")); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("bad video config: %v", err)
	}
	// Zero std with normalization on.
	writeFolder(t, filepath.Join(root, "f"), map[string]string{"preprocessor_config.json": `{"image_std": 0}`,
		"config.json": `{"model_type": "qwen2_vl"}`})
	if _, err := LoadConfig(filepath.Join(root, "f")); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("zero std: %v", err)
	}
}

// A preset name wins over a folder of the same name; other paths load as
// folders; anything else is an error.
func TestLoadPresetWinsOverFolder(t *testing.T) {
	root := t.TempDir()
	writeFolder(t, filepath.Join(root, "qwen2.5-vl"), map[string]string{
		"preprocessor_config.json": `{"patch_size": 16}`, "config.json": `{"model_type": "qwen2_5_vl"}`})
	t.Chdir(root)
	p, err := Load("qwen2.5-vl")
	if err != nil || p.Config().PatchSize != 14 {
		t.Fatalf("preset: %v, %v", p, err)
	}
	p, err = Load("./qwen2.5-vl")
	if err != nil || p.Config().PatchSize != 16 {
		t.Fatalf("folder: %v, %v", p, err)
	}
	if _, err := Load("nonexistent"); !errors.Is(err, vision.ErrUnsupported) {
		t.Errorf("nonexistent: %v", err)
	}
	if _, err := Load("qwen3-vl", Options{}, Options{}); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("two options: %v", err)
	}
	if _, err := Load("qwen3-vl", Options{Workers: -1}); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("negative workers: %v", err)
	}
}

// Parsing never panics, and whatever it accepts either validates or is
// refused with one of the package's errors.
func FuzzParseImageConfig(f *testing.F) {
	for _, dir := range []string{"testdata/qwen2.5-vl", "testdata/qwen3-vl"} {
		b, err := os.ReadFile(filepath.Join(dir, "preprocessor_config.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseImageConfig(data, ModelQwen3VL)
		if err != nil {
			if !errors.Is(err, vision.ErrBadOptions) {
				t.Fatalf("error %v does not wrap ErrBadOptions", err)
			}
			return
		}
		if err := c.Validate(); err != nil && !errors.Is(err, vision.ErrBadOptions) && !errors.Is(err, vision.ErrUnsupported) {
			t.Fatalf("Validate: %v", err)
		}
		if _, err := ParseVideoConfig(data); err != nil && !errors.Is(err, vision.ErrBadOptions) {
			t.Fatalf("video: %v", err)
		}
	})
}
