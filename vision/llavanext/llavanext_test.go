package llavanext

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/hfconfig"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

func load(t testing.TB) *Processor {
	t.Helper()
	p, err := Load("testdata/llava-next", Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadConfigFixture(t *testing.T) {
	cfg, err := LoadConfig("testdata/llava-next")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Pinpoints, DefaultPinpoints()) || cfg.TileSize() != 336 || cfg.Prompt.ImageTokenID != 32000 ||
		cfg.Prompt.NumAdditionalImageTokens != 1 || cfg.Image.CropWidth != 336 {
		t.Errorf("config %+v", cfg)
	}
	if h, w := cfg.BaseSize(); h != 336 || w != 336 {
		t.Errorf("base size %dx%d", w, h)
	}
}

func TestParseConfigErrors(t *testing.T) {
	f := visiontest.Fixture(t, "testdata/llava-next")
	tests := []struct {
		name string
		pre  string
		want error
	}{
		{"processor type", `{"image_processor_type": "CLIPImageProcessor", "size": {"shortest_edge": 336}}`, vision.ErrUnsupported},
		{"pinpoint shape", `{"image_grid_pinpoints": [[336, 672, 1]]}`, vision.ErrBadOptions},
		{"pinpoint fraction", `{"image_grid_pinpoints": [[336.5, 672]]}`, vision.ErrBadOptions},
		{"pinpoint zero", `{"image_grid_pinpoints": [[0, 672]]}`, vision.ErrBadOptions},
		{"no pinpoints", `{"image_grid_pinpoints": []}`, vision.ErrBadOptions},
		{"pinpoints type", `{"image_grid_pinpoints": "anyres"}`, vision.ErrBadOptions},
	}
	for _, tc := range tests {
		g := f
		g.Preprocessor = []byte(tc.pre)
		if _, err := ParseConfig(g); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	g := f
	g.Model = []byte(`{"model_type": "llava"}`)
	if _, err := ParseConfig(g); !errors.Is(err, vision.ErrUnsupported) {
		t.Errorf("model type: %v", err)
	}
	g = f
	g.Preprocessor = []byte(`{"image_grid_pinpoints": null}`)
	if cfg, err := ParseConfig(g); err != nil || !slices.Equal(cfg.Pinpoints, DefaultPinpoints()) || cfg.TileSize() != 224 {
		t.Errorf("defaults: %+v, %v", cfg, err)
	}
}

func TestBestResolution(t *testing.T) {
	tests := []struct {
		w, h int
		want [2]int
		ok   bool
	}{
		{1600, 800, [2]int{336, 672}, true},
		{800, 1600, [2]int{672, 336}, true},
		{1000, 1000, [2]int{672, 672}, true},
		{3000, 1000, [2]int{336, 1008}, true},
		{1000, 3000, [2]int{1008, 336}, true},
		{100, 100, [2]int{336, 672}, true}, // every pinpoint keeps the whole image: least waste, first listed
		{1, 1009, [2]int{336, 672}, true},  // no pinpoint keeps a pixel: the first listed wastes less than +inf
	}
	for _, tc := range tests {
		got, ok := BestResolution(tc.h, tc.w, DefaultPinpoints())
		if got != tc.want || ok != tc.ok {
			t.Errorf("%dx%d: %v %v, want %v %v", tc.w, tc.h, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := BestResolution(10, 10, nil); ok {
		t.Error("no pinpoints: ok")
	}
}

func TestPatchOutputSize(t *testing.T) {
	tests := []struct {
		w, h         int
		target       [2]int
		wantH, wantW int
	}{
		{2560, 1600, [2]int{672, 672}, 420, 672},
		{1600, 2560, [2]int{672, 672}, 672, 420},
		{30, 6000, [2]int{1008, 336}, 1008, 6},
		{1, 1, [2]int{336, 672}, 336, 336},
		{1000, 333, [2]int{336, 1008}, 336, 1008},
	}
	for _, tc := range tests {
		if h, w := PatchOutputSize(tc.h, tc.w, tc.target); h != tc.wantH || w != tc.wantW {
			t.Errorf("%dx%d in %v: %dx%d, want %dx%d", tc.w, tc.h, tc.target, w, h, tc.wantW, tc.wantH)
		}
	}
}

func TestRound7(t *testing.T) {
	// The doubles around 5.99999995: the nearest is above the decimal value.
	below, above := math.Nextafter(6-0.5e-7, 0), math.Nextafter(6-0.5e-7, 10)
	tests := []struct {
		x    float64
		want int
	}{
		{0, 0}, {3, 3}, {2.9999999999999996, 3}, {5.99999995, 6}, {below, 5}, {above, 6}, {5.9999999, 5},
		{12.5, 12}, {1e-9, 0}, {4503599627370495.5, 4503599627370495},
	}
	for _, tc := range tests {
		if got := Round7(tc.x); got != tc.want {
			t.Errorf("Round7(%v) = %d, want %d", tc.x, got, tc.want)
		}
	}
}

func TestPlanImage(t *testing.T) {
	p := load(t)
	plan, err := p.PlanImage(2560, 1600, vision.Overrides{})
	want := vision.Plan{SourceWidth: 2560, SourceHeight: 1600, Width: 672, Height: 420, Tokens: 2046,
		NDims: 5, Dims: [vision.MaxDims]int{1, 5, 3, 336, 336}, Views: 5}
	if err != nil || plan != want || ImageSizes(plan) != [2]int{1600, 2560} {
		t.Errorf("plan %+v, %v; want %+v", plan, err, want)
	}
	if _, err := p.PlanImage(-1, 5, vision.Overrides{}); !errors.Is(err, vision.ErrTooSmall) {
		t.Errorf("negative: %v", err)
	}
	if _, err := p.PlanImage(5, 5, vision.Overrides{MinPixels: -1}); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("overrides: %v", err)
	}
	// A pinpoint smaller than the views leaves no feature grid.
	cfg := p.Config()
	cfg.Pinpoints = [][2]int{{100, 100}}
	q, err := New(&cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.PlanImage(50, 50, vision.Overrides{}); !errors.Is(err, vision.ErrUnsupported) {
		t.Errorf("small pinpoint: %v", err)
	}
	// Without a center crop, edge tiles of odd pinpoints would not stack.
	cfg = p.Config()
	cfg.Pinpoints = [][2]int{{336, 500}}
	cfg.Image.DoCenterCrop = false
	if q, err = New(&cfg, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.PlanImage(50, 50, vision.Overrides{}); !errors.Is(err, vision.ErrUnsupported) {
		t.Errorf("ragged views: %v", err)
	}
	if text, runs := p.Expansion(plan); text != "<image>" || !slices.Equal(runs, []int{2046}) || p.PadToken() != "<image>" || p.Anchor() != "<image>" {
		t.Errorf("expansion %q %v", text, runs)
	}
}

func TestNewErrors(t *testing.T) {
	cfg, err := LoadConfig("testdata/llava-next")
	if err != nil {
		t.Fatal(err)
	}
	visiontest.NewErrors(t, cfg, New, Load)
}

// The output does not depend on the number of workers.
func TestProcessImageWorkers(t *testing.T) {
	cfg, err := LoadConfig("testdata/llava-next")
	if err != nil {
		t.Fatal(err)
	}
	visiontest.SameForWorkers(t, func(w int) vision.Processor {
		p, err := New(cfg, Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}, visiontest.Synth(900, 500, 4), tensor.Float16)
}

// PlanImage never panics and refuses with typed errors; ProcessImage
// writes every byte of the plan, for small tiles and pinpoints.
func FuzzPlanImage(f *testing.F) {
	f.Add(30, 10, 8, 16, 24, 8, true)
	f.Add(1, 3, 16, 16, 16, 32, false)
	f.Add(50, 7, 8, 20, 12, 9, true)
	base, err := LoadConfig("testdata/llava-next")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, w, h, edge, ph, pw, crop int, square bool) {
		cfg := *base
		cfg.Image.Size = hfconfig.Size{ShortestEdge: edge}
		if square {
			cfg.Image.Size = hfconfig.Size{Height: edge, Width: edge}
		}
		cfg.Image.CropHeight, cfg.Image.CropWidth = crop, crop
		cfg.Pinpoints = [][2]int{{ph, pw}, {pw, ph}, {ph, ph}}
		cfg.Prompt.PatchSize = 2
		p, err := New(&cfg, Options{Workers: 2, PixelLimit: 1 << 12})
		visiontest.FuzzPlan(t, p, err, w, h, tensor.Float32, func(plan vision.Plan) bool {
			return plan.Views >= 2 && plan.Dims[1] == plan.Views && plan.Elements() == plan.Views*3*crop*crop
		}, vision.ErrTooSmall, vision.ErrTooLarge, vision.ErrUnsupported)
	})
}

// Parsing never panics; what it refuses wraps the package's error kinds.
func FuzzParseConfig(f *testing.F) {
	fx := visiontest.Fixture(f, "testdata/llava-next")
	f.Add(fx.Preprocessor, fx.Processor)
	f.Add([]byte(`{"image_grid_pinpoints": [[2, 3]], "crop_size": 1, "size": 1}`), []byte(`{"patch_size": 1}`))
	f.Fuzz(func(t *testing.T, pre, proc []byte) {
		cfg, err := ParseConfig(hfconfig.Files{Preprocessor: pre, Processor: proc, Model: fx.Model})
		if err != nil {
			visiontest.RequireKind(t, err, vision.ErrBadOptions, vision.ErrUnsupported)
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("accepted an invalid config: %v", err)
		}
	})
}
