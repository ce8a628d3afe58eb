package glm4v

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmgate/mmgate/vision"
)

func TestLoadConfigFixture(t *testing.T) {
	c := fixtureConfig(t)
	want := DefaultConfig()
	want.Image.MinPixels, want.Image.MaxPixels = 12544, 9633792
	want.Video.MinPixels, want.Video.MaxPixels = 12544, 47040000
	if *c != want {
		t.Errorf("config\n %+v\nwant\n %+v", *c, want)
	}
}

func TestParseConfigs(t *testing.T) {
	parsed := func(js string) (Config, error) {
		c := DefaultConfig()
		return c, c.ParseImageConfig([]byte(js))
	}
	valid := map[string]func(c Config) bool{
		`{}`: func(c Config) bool { return c.Image.MinPixels == 12544 && c.Image.MaxPixels == 11760000 },
		// GLM reads its bounds from size only.
		`{"min_pixels": 5, "max_pixels": 6, "size": {"shortest_edge": 100, "longest_edge": 2000}}`: func(c Config) bool {
			return c.Image.MinPixels == 100 && c.Image.MaxPixels == 2000
		},
		`{"min_pixels": 5, "max_pixels": 6}`: func(c Config) bool { return c.Image.MinPixels == 12544 },
		`{"patch_size": 16, "merge_size": 1, "image_mean": 0.5}`: func(c Config) bool {
			return c.Image.Factor() == 16 && c.Image.ImageMean == [3]float64{0.5, 0.5, 0.5}
		},
	}
	for js, ok := range valid {
		if c, err := parsed(js); err != nil || !ok(c) {
			t.Errorf("%s: %v, %+v", js, err, c.Image)
		}
	}
	for _, js := range []string{
		`{"size": {"shortest_edge": 100}}`, `{"size": {"longest_edge": 100.5, "shortest_edge": 1}}`,
		`{"size": {"longest_edge": -1, "shortest_edge": 1}}`, `{"patch_size": "x"}`, `{} []`,
	} {
		if _, err := parsed(js); !errors.Is(err, vision.ErrBadOptions) {
			t.Errorf("%s: err = %v, want ErrBadOptions", js, err)
		}
	}
	c := DefaultConfig()
	if err := c.ParseVideoConfig([]byte(`{"fps": 4, "do_sample_frames": false, "size": {"shortest_edge": 1, "longest_edge": 9}}`)); err != nil ||
		c.FPS != 4 || c.SampleFrames || c.Video.MaxPixels != 9 || c.Image.MaxPixels != imageMaxPixels {
		t.Errorf("video config: %v, %+v", err, c)
	}
	if err := c.ParseTokenizerConfig([]byte(`{"extra_special_tokens": {"image_token": "<img>", "video_token": null}}`)); err != nil ||
		c.ImageToken != "<img>" || c.VideoToken != "<|video|>" {
		t.Errorf("tokenizer config: %v, %+v", err, c)
	}
	if err := c.ParseTokenizerConfig([]byte(`{"extra_special_tokens": {"video_token": 3}}`)); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("non-string token: err = %v", err)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	dirWith := func(files map[string]string) string {
		dir := t.TempDir()
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	cases := []struct {
		name  string
		files map[string]string
		want  error
	}{
		{"no preprocessor config", map[string]string{"config.json": `{"model_type": "glm4v"}`}, vision.ErrBadOptions},
		{"no config.json", map[string]string{"preprocessor_config.json": `{}`}, vision.ErrBadOptions},
		{"qwen", map[string]string{"config.json": `{"model_type": "qwen2_vl"}`, "preprocessor_config.json": `{}`}, vision.ErrUnsupported},
		{"zero fps", map[string]string{"config.json": `{"model_type": "glm4v"}`, "preprocessor_config.json": `{}`,
			"video_preprocessor_config.json": `{"fps": 0}`}, vision.ErrBadOptions},
		{"zero max", map[string]string{"config.json": `{"model_type": "glm4v"}`,
			"preprocessor_config.json": `{"size": {"shortest_edge": 0, "longest_edge": 0}}`}, vision.ErrBadOptions},
		{"huge patch", map[string]string{"config.json": `{"model_type": "glm4v"}`, "preprocessor_config.json": `{"patch_size": 999}`}, vision.ErrBadOptions},
	}
	for _, tc := range cases {
		if _, err := LoadConfig(dirWith(tc.files)); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	c, err := LoadConfig(dirWith(map[string]string{"config.json": `{"model_type": "glm4v_moe"}`, "preprocessor_config.json": `{}`}))
	if err != nil || c.ModelType != ModelGLM4VMoE || c.Video.MaxPixels != videoMaxPixels {
		t.Errorf("GLM-4.5V without a video config: %v, %+v", err, c)
	}
}
