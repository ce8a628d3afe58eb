package clip

import (
	"errors"
	"slices"
	"testing"

	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/hfconfig"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
	"github.com/mmgate/mmgate/vision/norm"
)

// clipNorm is the CLIP class default rescale and normalize.
func clipNorm() norm.Params {
	mean, std := norm.OpenAICLIP()
	return norm.Params{Rescale: 0.00392156862745098, Mean: mean, Std: std, DoRescale: true, DoNormalize: true}
}

func fixture(t testing.TB) hfconfig.Files { return visiontest.Fixture(t, "testdata/llava-1.5") }

func patch(t testing.TB, data []byte, kv map[string]any) []byte { return visiontest.Patch(t, data, kv) }

func TestLoadConfigFixture(t *testing.T) {
	cfg, err := LoadConfig("testdata/llava-1.5")
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Image: ImageConfig{DoResize: true, Size: hfconfig.Size{ShortestEdge: 336}, Resample: resample.Bicubic,
			DoCenterCrop: true, CropHeight: 336, CropWidth: 336,
			Norm: clipNorm()},
		Prompt: PromptConfig{PatchSize: 14, Strategy: "default", NumAdditionalImageTokens: 1, ImageToken: "<image>", ImageTokenID: 32000},
	}
	if *cfg != want {
		t.Errorf("config\n%+v\nwant\n%+v", *cfg, want)
	}
}

func TestParseConfigFallbacks(t *testing.T) {
	f := fixture(t)
	// Without processor_config.json: config.json's patch size and strategy,
	// no additional token (the LlavaProcessor default).
	cfg, err := ParseConfig(hfconfig.Files{Preprocessor: []byte(`{"size": 224}`), Model: f.Model})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Image.Size != (hfconfig.Size{ShortestEdge: 224}) || cfg.Image.CropHeight != 224 ||
		cfg.Prompt != (PromptConfig{PatchSize: 14, Strategy: "default", ImageToken: "<image>", ImageTokenID: 32000}) {
		t.Errorf("fallbacks: %+v", cfg)
	}
}

func TestParseConfigErrors(t *testing.T) {
	f := fixture(t)
	pre := func(kv map[string]any) hfconfig.Files {
		g := f
		g.Preprocessor = patch(t, f.Preprocessor, kv)
		return g
	}
	tests := []struct {
		name string
		f    hfconfig.Files
		want error
	}{
		{"no preprocessor", hfconfig.Files{Model: f.Model}, vision.ErrBadOptions},
		{"processor type", pre(map[string]any{"image_processor_type": "LlavaImageProcessor"}), vision.ErrUnsupported},
		{"model type", hfconfig.Files{Preprocessor: f.Preprocessor, Processor: f.Processor, Model: []byte(`{"model_type": "llava_next"}`)}, vision.ErrUnsupported},
		{"no patch size", hfconfig.Files{Preprocessor: f.Preprocessor}, vision.ErrBadOptions},
		{"strategy", hfconfig.Files{Preprocessor: f.Preprocessor, Processor: patch(t, f.Processor, map[string]any{"vision_feature_select_strategy": "cls"})}, vision.ErrUnsupported},
		{"longest edge", pre(map[string]any{"size": map[string]int{"shortest_edge": 336, "longest_edge": 672}}), vision.ErrUnsupported},
		{"crop", pre(map[string]any{"crop_size": 0}), vision.ErrBadOptions},
		{"mean", pre(map[string]any{"image_mean": []float64{1, 2}}), vision.ErrBadOptions},
		{"tokenizer", hfconfig.Files{Preprocessor: f.Preprocessor, Processor: f.Processor, Tokenizer: []byte(`1`)}, vision.ErrBadOptions},
	}
	for _, tc := range tests {
		if _, err := ParseConfig(tc.f); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

// Geometry: the shortest-edge rule, Python's floor division for the crop
// origin (negative where center_crop pads) and the exact-size form.
func TestGeometry(t *testing.T) {
	c := ImageConfig{DoResize: true, Size: hfconfig.Size{ShortestEdge: 336}, DoCenterCrop: true, CropHeight: 336, CropWidth: 336}
	pad := ImageConfig{DoResize: true, Size: hfconfig.Size{ShortestEdge: 200}, DoCenterCrop: true, CropHeight: 336, CropWidth: 301}
	exact := ImageConfig{DoResize: true, Size: hfconfig.Size{Height: 224, Width: 336}}
	none := ImageConfig{DoCenterCrop: true, CropHeight: 4, CropWidth: 4}
	tests := []struct {
		c    ImageConfig
		w, h int
		want Geometry
	}{
		{c, 640, 480, Geometry{ResizeW: 448, ResizeH: 336, X: 56, Y: 0, W: 336, H: 336}},
		{c, 480, 640, Geometry{ResizeW: 336, ResizeH: 448, X: 0, Y: 56, W: 336, H: 336}},
		{c, 1, 3, Geometry{ResizeW: 336, ResizeH: 1008, X: 0, Y: 336, W: 336, H: 336}},
		{c, 333, 777, Geometry{ResizeW: 336, ResizeH: 784, X: 0, Y: 224, W: 336, H: 336}},
		{c, 334, 777, Geometry{ResizeW: 336, ResizeH: 781, X: 0, Y: 222, W: 336, H: 336}},
		{c, 336, 336, Geometry{ResizeW: 336, ResizeH: 336, W: 336, H: 336}},
		{pad, 640, 480, Geometry{ResizeW: 266, ResizeH: 200, X: -18, Y: -68, W: 301, H: 336}},
		{exact, 640, 480, Geometry{ResizeW: 336, ResizeH: 224, W: 336, H: 224}},
		{none, 9, 7, Geometry{ResizeW: 9, ResizeH: 7, X: 2, Y: 1, W: 4, H: 4}},
	}
	for _, tc := range tests {
		if got := tc.c.Geometry(tc.w, tc.h); got != tc.want {
			t.Errorf("%+v %dx%d: %+v, want %+v", tc.c.Size, tc.w, tc.h, got, tc.want)
		}
	}
}

func TestPlanImage(t *testing.T) {
	p, err := Load("testdata/llava-1.5", Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.PlanImage(2560, 1600, vision.Overrides{})
	want := vision.Plan{SourceWidth: 2560, SourceHeight: 1600, Width: 537, Height: 336, Tokens: 576,
		NDims: 4, Dims: [vision.MaxDims]int{1, 3, 336, 336}, Views: 1}
	if err != nil || plan != want {
		t.Errorf("plan %+v, %v; want %+v", plan, err, want)
	}
	// 1×600 resizes to 336×201600: over the 64 Mpx limit.
	if _, err := p.PlanImage(1, 600, vision.Overrides{}); !errors.Is(err, vision.ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := p.PlanImage(0, 600, vision.Overrides{}); !errors.Is(err, vision.ErrTooSmall) {
		t.Errorf("empty: %v", err)
	}
	if _, err := p.PlanImage(5, 6, vision.Overrides{MaxPixels: -2}); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("overrides: %v", err)
	}
	full := p.Config()
	full.Prompt.Strategy = "full"
	if n := full.Prompt.ImageTokens(336, 336); n != 577 {
		t.Errorf("full strategy: %d tokens", n)
	}
	small := p.Config()
	small.Image.CropHeight, small.Image.CropWidth = 10, 10
	sp, err := New(&small, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sp.PlanImage(50, 50, vision.Overrides{}); !errors.Is(err, vision.ErrTooSmall) {
		t.Errorf("no image token: %v", err)
	}
	if text, runs := p.Expansion(plan); text != "<image>" || !slices.Equal(runs, []int{576}) || p.Anchor() != "<image>" {
		t.Errorf("expansion %q %v", text, runs)
	}
}

func TestNewErrors(t *testing.T) {
	cfg, err := LoadConfig("testdata/llava-1.5")
	if err != nil {
		t.Fatal(err)
	}
	visiontest.NewErrors(t, cfg, New, Load)
}

// PlanImage never panics and refuses with typed errors; ProcessImage
// writes every byte of the plan.
func FuzzPlanImage(f *testing.F) {
	f.Add(30, 10, 16, 12, 9, true)
	f.Add(1, 3, 8, 8, 8, false)
	f.Add(7, 90, 3, 20, 5, true)
	base, err := LoadConfig("testdata/llava-1.5")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, w, h, edge, cropH, cropW int, crop bool) {
		cfg := *base
		cfg.Image.Size = hfconfig.Size{ShortestEdge: edge}
		cfg.Image.DoCenterCrop, cfg.Image.CropHeight, cfg.Image.CropWidth = crop, cropH, cropW
		cfg.Prompt.PatchSize = 2
		p, err := New(&cfg, Options{Workers: 2, PixelLimit: 1 << 12})
		visiontest.FuzzPlan(t, p, err, w, h, tensor.BFloat16, func(plan vision.Plan) bool {
			return plan.Views == 1 && plan.Elements() == 3*plan.Dims[2]*plan.Dims[3] && plan.Width*plan.Height <= 1<<12
		}, vision.ErrTooSmall, vision.ErrTooLarge)
	})
}

// Parsing never panics; what it refuses wraps the package's error kinds.
func FuzzParseConfig(f *testing.F) {
	fx := fixture(f)
	f.Add(fx.Preprocessor, fx.Processor, fx.Model)
	f.Add([]byte(`{"size": 3, "crop_size": {"height": 2}}`), []byte(`{"patch_size": 1}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, pre, proc, model []byte) {
		cfg, err := ParseConfig(hfconfig.Files{Preprocessor: pre, Processor: proc, Model: model})
		if err != nil {
			visiontest.RequireKind(t, err, vision.ErrBadOptions, vision.ErrUnsupported)
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("accepted an invalid config: %v", err)
		}
	})
}
