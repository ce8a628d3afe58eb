package internvl

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

func TestCandidates(t *testing.T) {
	// get_all_supported_aspect_ratios(1, 4), from its docstring.
	want := []grid{{1, 1}, {1, 2}, {2, 1}, {1, 3}, {3, 1}, {1, 4}, {2, 2}, {4, 1}}
	if got := candidates(1, 4); !reflect.DeepEqual(got, want) {
		t.Errorf("candidates(1, 4) = %v, want %v", got, want)
	}
	if got := candidates(5, 4); len(got) != 0 {
		t.Errorf("candidates(5, 4) = %v, want none", got)
	}
}

func TestBestGrid(t *testing.T) {
	c12 := candidates(1, 12)
	cases := []struct {
		w, h int
		want grid
	}{
		{448, 448, grid{1, 1}},   // area under half of 2×2 tiles: stays 1×1
		{634, 634, grid{2, 2}},   // 401956 > 401408
		{633, 633, grid{1, 1}},   // 400689 ≤ 401408
		{951, 951, grid{3, 3}},   // over half of 3×3 tiles
		{2560, 1600, grid{3, 2}}, // 1.6: closest to 1.5
		{1600, 1203, grid{4, 3}}, // 1.33
		{1, 5000, grid{1, 12}},
		{5000, 1, grid{12, 1}},
		{700, 400, grid{2, 1}},   // exactly between 1.5 and 2: the earlier grid under the area rule
		{7000, 4000, grid{4, 2}}, // the same tie, a large image: the last grid of the two ratios
	}
	for _, tc := range cases {
		if got := bestGrid(tc.w, tc.h, 448, 448, c12); got != tc.want {
			t.Errorf("bestGrid(%d×%d) = %v, want %v", tc.w, tc.h, got, tc.want)
		}
	}
	if got := bestGrid(100, 10, 448, 448, nil); got != (grid{1, 1}) {
		t.Errorf("no candidates: %v, want 1×1", got)
	}
}

func TestPlanImage(t *testing.T) {
	p, err := Load("testdata/internvl3", Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.PlanImage(2560, 1600, vision.Overrides{MaxPixels: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := vision.Plan{SourceWidth: 2560, SourceHeight: 1600, Width: 1344, Height: 896, Tokens: 1792,
		NDims: 4, Dims: [vision.MaxDims]int{7, 3, 448, 448}, Views: 7}
	if plan != want {
		t.Errorf("plan %+v, want %+v", plan, want)
	}
	if pr := p.ImagePrompt(plan); pr.Text != "<img><IMG_CONTEXT></img>" || pr.Pad != "<IMG_CONTEXT>" || !reflect.DeepEqual(pr.Runs, []int{1792}) {
		t.Errorf("prompt %+v", pr)
	}
	if p.ImageAnchor() != "<IMG_CONTEXT>" || p.NumPatches(plan) != 7 {
		t.Errorf("anchor %q, num_patches %d", p.ImageAnchor(), p.NumPatches(plan))
	}
	errs := []struct {
		w, h int
		o    vision.Overrides
		want error
	}{
		{0, 10, vision.Overrides{}, vision.ErrTooSmall},
		{10, -1, vision.Overrides{}, vision.ErrTooSmall},
		{1 << 25, 10, vision.Overrides{}, vision.ErrTooLarge},
		{10, 10, vision.Overrides{MinPixels: -1}, vision.ErrBadOptions},
	}
	for _, e := range errs {
		if _, err := p.PlanImage(e.w, e.h, e.o); !errors.Is(err, e.want) {
			t.Errorf("PlanImage(%d, %d, %+v): err = %v, want %v", e.w, e.h, e.o, err, e.want)
		}
	}
	small, err := Load("testdata/internvl3", Options{PixelLimit: 448 * 448 * 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := small.PlanImage(2560, 1600, vision.Overrides{}); !errors.Is(err, vision.ErrTooLarge) {
		t.Errorf("over the pixel limit: err = %v", err)
	}
}

// The output does not depend on the worker count, and every byte of dst is
// written.
func TestProcessImageWorkers(t *testing.T) {
	img := visiontest.Synth(1500, 700, 9)
	var first []byte
	for _, workers := range []int{1, 2, 5} {
		p, err := Load("testdata/internvl3", Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := p.PlanImage(img.Width, img.Height, vision.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		dst := visiontest.Ones(plan.Bytes(tensor.BFloat16))
		if _, err := p.ProcessImage(context.Background(), img, plan, tensor.BFloat16, dst); err != nil {
			t.Fatal(err)
		}
		if visiontest.Unwritten(dst, 2) {
			t.Fatal("some elements were not written")
		}
		if first == nil {
			first = dst
		} else if !bytes.Equal(first, dst) {
			t.Fatalf("workers %d: output differs", workers)
		}
	}
}

func TestProcessImageCancelled(t *testing.T) {
	p, img, plan := planned(t, 900, 500)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.ProcessImage(ctx, img, plan, tensor.Float32, make([]byte, plan.Bytes(tensor.Float32))); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// planned loads the fixture and plans a synthesized w×h image.
func planned(t *testing.T, w, h int) (*Processor, *imaging.RGB, vision.Plan) {
	t.Helper()
	p, err := Load("testdata/internvl3", Options{})
	if err != nil {
		t.Fatal(err)
	}
	img := visiontest.Synth(w, h, 1)
	plan, err := p.PlanImage(w, h, vision.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	return p, img, plan
}
