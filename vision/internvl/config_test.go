package internvl

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmgate/mmgate/vision"
)

func TestLoadConfigFixture(t *testing.T) {
	c, err := LoadConfig("testdata/internvl3")
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		ModelType: ModelType, TileWidth: 448, TileHeight: 448, MinTiles: 1, MaxTiles: 12, Resample: 3,
		DoResize: true, DoRescale: true, DoNormalize: true, RescaleFactor: 0.00392156862745098,
		ImageMean: [3]float64{0.485, 0.456, 0.406}, ImageStd: [3]float64{0.229, 0.224, 0.225},
		ImageSeqLength: 256, StartToken: "<img>", ContextToken: "<IMG_CONTEXT>", EndToken: "</img>",
	}
	if *c != want {
		t.Errorf("config\n %+v\nwant\n %+v", *c, want)
	}
}

func TestParseImageConfig(t *testing.T) {
	cases := []struct {
		json string
		err  bool
		chk  func(c Config) bool
	}{
		{`{}`, false, func(c Config) bool {
			return c.TileWidth == 384 && c.TileHeight == 384 && c.MaxTiles == 12 && c.ImageMean == [3]float64{0.48145466, 0.4578275, 0.40821073}
		}},
		{`{"size": 224, "image_mean": null, "image_std": 0.5}`, false, func(c Config) bool {
			return c.TileWidth == 224 && c.TileHeight == 224 && c.ImageMean == DefaultConfig().ImageMean && c.ImageStd == [3]float64{0.5, 0.5, 0.5}
		}},
		{`{"size": {"height": 24, "width": 40}, "image_mean": [0.1], "min_patches": 2, "max_patches": 6}`, false, func(c Config) bool {
			return c.TileWidth == 40 && c.TileHeight == 24 && c.ImageMean == [3]float64{0.1, 0.1, 0.1} && c.MinTiles == 2 && c.MaxTiles == 6
		}},
		{`{"size": null, "max_patches": null, "do_resize": false, "rescale_factor": 0.5}`, false, func(c Config) bool {
			return c.TileWidth == 384 && c.MaxTiles == 12 && !c.DoResize && c.RescaleFactor == 0.5
		}},
		{`{"size": {"shortest_edge": 448}}`, true, nil},
		{`{"size": {"height": 448}}`, true, nil},
		{`{"size": -3}`, true, nil},
		{`{"image_mean": [0.1, 0.2]}`, true, nil},
		{`{"image_std": "x"}`, true, nil},
		{`{"min_patches": 1.5}`, true, nil},
		{`{"max_patches": -1}`, true, nil},
		{`{"resample": "bicubic"}`, true, nil},
		{`{} {}`, true, nil},
		{`null`, true, nil},
		{`[1]`, true, nil},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		err := c.ParseImageConfig([]byte(tc.json))
		if err == nil && tc.err {
			err = c.Validate()
		}
		if tc.err {
			if !errors.Is(err, vision.ErrBadOptions) {
				t.Errorf("%s: err = %v, want ErrBadOptions", tc.json, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.json, err)
			continue
		}
		if !tc.chk(c) {
			t.Errorf("%s: config %+v", tc.json, c)
		}
	}
}

func TestParseProcessorAndTokenizerConfig(t *testing.T) {
	c := DefaultConfig()
	if err := c.ParseProcessorConfig([]byte(`{"image_seq_length": 64}`)); err != nil || c.ImageSeqLength != 64 {
		t.Errorf("image_seq_length: %v, %d", err, c.ImageSeqLength)
	}
	if err := c.ParseProcessorConfig([]byte(`{"image_seq_length": 0.5}`)); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("fractional image_seq_length: err = %v", err)
	}
	tok := `{"extra_special_tokens": {"start_image_token": "<s_img>", "context_image_token": "<ctx>", "video_token": "<video>"}}`
	if err := c.ParseTokenizerConfig([]byte(tok)); err != nil || c.StartToken != "<s_img>" || c.ContextToken != "<ctx>" || c.EndToken != "</img>" {
		t.Errorf("tokens: %v, %+v", err, c)
	}
	if err := c.ParseTokenizerConfig([]byte(`{"extra_special_tokens": {"end_image_token": ""}}`)); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("empty token: err = %v", err)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	write := func(t *testing.T, files map[string]string) string {
		dir := t.TempDir()
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	pre := `{"size": {"height": 448, "width": 448}}`
	cases := []struct {
		name  string
		files map[string]string
		want  error
	}{
		{"no preprocessor config", map[string]string{"config.json": `{"model_type": "internvl"}`}, vision.ErrBadOptions},
		{"no config.json", map[string]string{"preprocessor_config.json": pre}, vision.ErrBadOptions},
		{"other model", map[string]string{"config.json": `{"model_type": "llava"}`, "preprocessor_config.json": pre}, vision.ErrUnsupported},
		{"bad processor config", map[string]string{"config.json": `{"model_type": "internvl"}`, "preprocessor_config.json": pre,
			"processor_config.json": `{"image_seq_length": -1}`}, vision.ErrBadOptions},
		{"too many tiles", map[string]string{"config.json": `{"model_type": "internvl"}`,
			"preprocessor_config.json": `{"max_patches": 1000}`}, vision.ErrBadOptions},
		{"zero std", map[string]string{"config.json": `{"model_type": "internvl"}`,
			"preprocessor_config.json": `{"image_std": 0}`}, vision.ErrBadOptions},
	}
	for _, tc := range cases {
		if _, err := LoadConfig(write(t, tc.files)); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	// processor_config.json and tokenizer_config.json are optional.
	c, err := LoadConfig(write(t, map[string]string{"config.json": `{"model_type": "internvl"}`, "preprocessor_config.json": pre}))
	if err != nil || c.ImageSeqLength != 256 || c.ContextToken != "<IMG_CONTEXT>" {
		t.Errorf("minimal folder: %v, %+v", err, c)
	}
}
