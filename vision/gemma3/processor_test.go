package gemma3

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

func newProc(t testing.TB, edit func(*Config)) *Processor {
	t.Helper()
	cfg, err := LoadConfig("testdata/gemma3")
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(cfg)
	}
	p, err := New(cfg, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func pasOn(c *Config) { c.PanAndScan.Enabled = true }

// The crop rules of Gemma3ImageProcessor.pan_and_scan, case by case.
func TestCrops(t *testing.T) {
	on := PanAndScan{Enabled: true, MinCropSize: 256, MaxNumCrops: 4, MinRatioToActivate: 1.2}
	tests := []struct {
		name string
		ps   PanAndScan
		w, h int
		want []Crop
	}{
		{"off", PanAndScan{MinCropSize: 256, MaxNumCrops: 4, MinRatioToActivate: 1.2}, 2000, 500, nil},
		{"square", on, 1000, 1000, nil},
		{"under the ratio", on, 1199, 1000, nil},
		{"at the ratio", on, 1200, 1000, []Crop{{0, 0, 600, 1000}, {600, 0, 600, 1000}}},
		{"three", on, 1001, 300, []Crop{{0, 0, 334, 300}, {334, 0, 334, 300}, {668, 0, 333, 300}}},
		{"capped at four", on, 6000, 1000, []Crop{{0, 0, 1500, 1000}, {1500, 0, 1500, 1000}, {3000, 0, 1500, 1000}, {4500, 0, 1500, 1000}}},
		{"short side under the minimum", on, 700, 200, nil},
		{"crop under the minimum", on, 500, 400, nil},
		{"last crop narrower", on, 511, 256, []Crop{{0, 0, 256, 256}, {256, 0, 255, 256}}},
		{"portrait", on, 300, 1001, []Crop{{0, 0, 300, 334}, {0, 334, 300, 334}, {0, 668, 300, 333}}},
		{"one crop allowed", PanAndScan{Enabled: true, MinCropSize: 10, MaxNumCrops: 1, MinRatioToActivate: 1.2}, 300, 100, []Crop{{0, 0, 300, 100}}},
	}
	for _, tc := range tests {
		if got := tc.ps.Crops(tc.w, tc.h); !slices.Equal(got, tc.want) {
			t.Errorf("%s %dx%d: %v, want %v", tc.name, tc.w, tc.h, got, tc.want)
		}
	}
}

func TestPlanImage(t *testing.T) {
	p := newProc(t, pasOn)
	plan, err := p.PlanImage(2560, 1600, vision.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	want := vision.Plan{SourceWidth: 2560, SourceHeight: 1600, Width: 896, Height: 896, Tokens: 768,
		NDims: 4, Dims: [vision.MaxDims]int{3, 3, 896, 896}, Views: 3}
	if plan != want || NumCrops(plan) != 2 || plan.Bytes(tensor.BFloat16) != 3*3*896*896*2 {
		t.Errorf("plan %+v, want %+v", plan, want)
	}
	errTests := []struct {
		w, h int
		o    vision.Overrides
		want error
	}{
		{0, 10, vision.Overrides{}, vision.ErrTooSmall},
		{10, -1, vision.Overrides{}, vision.ErrTooSmall},
		{10, 10, vision.Overrides{MinPixels: -1}, vision.ErrBadOptions},
	}
	for _, tc := range errTests {
		if _, err := p.PlanImage(tc.w, tc.h, tc.o); !errors.Is(err, tc.want) {
			t.Errorf("PlanImage(%d, %d, %+v): %v, want %v", tc.w, tc.h, tc.o, err, tc.want)
		}
	}
	// Settings under which a crop would start past the image (upstream then
	// resizes an empty array and fails).
	tiny := newProc(t, func(c *Config) {
		c.PanAndScan = PanAndScan{Enabled: true, MinCropSize: 1, MaxNumCrops: 4, MinRatioToActivate: 1.2}
	})
	if _, err := tiny.PlanImage(5, 1, vision.Overrides{}); !errors.Is(err, vision.ErrTooSmall) {
		t.Errorf("empty crop: %v", err)
	}
}

func TestProcessImageErrors(t *testing.T) {
	p := newProc(t, pasOn)
	img := visiontest.Synth(40, 20, 1)
	plan, err := p.PlanImage(40, 20, vision.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dst := make([]byte, plan.Bytes(tensor.Float32))
	bad := plan
	bad.Tokens++
	tests := []struct {
		name string
		img  *imaging.RGB
		plan vision.Plan
		dt   tensor.DType
		dst  []byte
		want error
	}{
		{"nil image", nil, plan, tensor.Float32, dst, vision.ErrBadInput},
		{"dtype", img, plan, tensor.Int64, dst, vision.ErrUnsupported},
		{"short dst", img, plan, tensor.Float32, dst[1:], vision.ErrBadInput},
		{"other plan", img, bad, tensor.Float32, dst, vision.ErrBadInput},
		{"other size", visiontest.Synth(41, 20, 1), plan, tensor.Float32, dst, vision.ErrBadInput},
		{"broken image", &imaging.RGB{Width: 40, Height: 20}, plan, tensor.Float32, dst, vision.ErrBadInput},
	}
	for _, tc := range tests {
		if _, err := p.ProcessImage(ctx, tc.img, tc.plan, tc.dt, tc.dst); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.ProcessImage(cctx, img, plan, tensor.Float32, dst); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// The output does not depend on the number of workers, and the stages
// are timed.
func TestProcessImageWorkers(t *testing.T) {
	img := visiontest.Synth(1700, 900, 3)
	visiontest.SameForWorkers(t, func(w int) vision.Processor {
		cfg, err := LoadConfig("testdata/gemma3")
		if err != nil {
			t.Fatal(err)
		}
		pasOn(cfg)
		p, err := New(cfg, Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}, img, tensor.BFloat16)
	p := newProc(t, pasOn)
	plan, err := p.PlanImage(img.Width, img.Height, vision.Overrides{})
	if err != nil || plan.Views != 3 {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	tm, err := p.ProcessImage(context.Background(), img, plan, tensor.Float32, make([]byte, plan.Bytes(tensor.Float32)))
	if err != nil || tm.Resize <= 0 || tm.NormalizePatchify <= 0 {
		t.Errorf("timings %+v, %v", tm, err)
	}
}

func TestExpansion(t *testing.T) {
	view := "\n\n<start_of_image><image_soft_token><end_of_image>\n\n"
	p := newProc(t, pasOn)
	if p.Anchor() != "<start_of_image>" || p.PadToken() != "<image_soft_token>" {
		t.Errorf("anchor %q pad %q", p.Anchor(), p.PadToken())
	}
	plan, err := p.PlanImage(100, 100, vision.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if text, runs := p.Expansion(plan); text != view || !slices.Equal(runs, []int{256}) {
		t.Errorf("one view: %q %v", text, runs)
	}
	plan, err = p.PlanImage(2600, 1000, vision.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Here is the original image " + view + " and here are some crops to help you see better " +
		strings.Join([]string{view, view, view}, " ")
	if text, runs := p.Expansion(plan); text != want || !slices.Equal(runs, []int{256, 256, 256, 256}) {
		t.Errorf("three crops: %q %v", text, runs)
	}
}

func TestNewErrors(t *testing.T) {
	cfg, err := LoadConfig("testdata/gemma3")
	if err != nil {
		t.Fatal(err)
	}
	visiontest.NewErrors(t, cfg, New, Load)
	cfg.Tokens.EOI = ""
	if _, err := New(cfg, Options{}); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("empty token: %v", err)
	}
}

// PlanImage never panics, refuses with typed errors, and a plan's shape
// times the dtype size is exactly what ProcessImage writes: every byte of
// the destination (prefilled two ways) is written, the same both times.
func FuzzPlanImage(f *testing.F) {
	f.Add(30, 10, true, 4, 3, 1.2)
	f.Add(5, 1, true, 1, 4, 1.2)
	f.Add(1, 1, false, 256, 4, 1.2)
	f.Add(64, 17, true, 2, 9, 0.5)
	norm := newProc(f, nil).cfg.Norm
	f.Fuzz(func(t *testing.T, w, h int, on bool, minCrop, maxCrops int, ratio float64) {
		cfg := Config{
			Height: 8, Width: 12, Resample: resample.Bilinear,
			Norm:           norm,
			PanAndScan:     PanAndScan{Enabled: on, MinCropSize: minCrop, MaxNumCrops: maxCrops, MinRatioToActivate: ratio},
			ImageSeqLength: 4, Tokens: Tokens{BOI: "a", EOI: "b", Image: "c"},
		}
		p, err := New(&cfg, Options{Workers: 2})
		visiontest.FuzzPlan(t, p, err, w, h, tensor.Float16, func(plan vision.Plan) bool {
			return plan.Tokens == 4*plan.Views && plan.Elements() == plan.Views*3*8*12
		}, vision.ErrTooSmall)
	})
}
