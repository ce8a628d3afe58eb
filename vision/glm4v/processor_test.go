package glm4v

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

// Vectors from glm4v_reference.smart_resize (factor 28, temporal factor 2,
// the fixture's image bounds unless stated).
func TestSmartResize(t *testing.T) {
	cases := []struct {
		t, h, w, min, max int
		wantH, wantW      int
	}{
		{2, 98, 70, 12544, 9633792, 112, 56}, // 3.5 → 4, 2.5 → 2: half to even
		{2, 70, 126, 12544, 9633792, 56, 112},
		{2, 1, 1, 12544, 9633792, 84, 84},      // scaled to 28×28, then grown
		{2, 3, 7, 12544, 9633792, 56, 140},     // int(3·28/3) = 28, int(7·28/3) = 65
		{2, 1000, 5, 12544, 9633792, 5600, 28}, // ratio exactly 200 after scaling
		{16, 1080, 1920, 12544, 9633792, 560, 1008},
		{600, 176, 192, 12544, 9633792, 112, 112},
		{3, 5000, 3000, 12544, 9633792, 2296, 1372}, // shrinks, beta over t·h·w with t = 3
		{2, 20, 6, 12544, 9633792, 168, 56},
		{2, 300, 200, 3136, 100352, 252, 168},
	}
	for _, c := range cases {
		h, w, err := SmartResize(c.t, c.h, c.w, 2, 28, c.min, c.max)
		if err != nil || h != c.wantH || w != c.wantW {
			t.Errorf("SmartResize(%d, %d, %d) = %d, %d, %v; want %d, %d", c.t, c.h, c.w, h, w, err, c.wantH, c.wantW)
		}
	}
	errs := []struct {
		t, h, w, tf, f, min, max int
		want                     error
	}{
		{1, 100, 100, 2, 28, 0, 1000, vision.ErrTooSmall},
		{2, 0, 100, 2, 28, 0, 1000, vision.ErrTooSmall},
		{2, 1001, 5, 2, 28, 0, 10000000, vision.ErrAspectRatio},
		{2, 5601, 28, 2, 28, 0, 10000000, vision.ErrAspectRatio},
		{2, 1 << 25, 1 << 25, 2, 28, 0, 1000, vision.ErrTooLarge},
		{2, 100, 100, 2, 28, 1 << 60, 1 << 61, vision.ErrTooLarge},
		{2, 100, 100, 0, 28, 0, 1000, vision.ErrBadOptions},
		{2, 100, 100, 2, 28, 0, 0, vision.ErrBadOptions},
	}
	for _, e := range errs {
		if _, _, err := SmartResize(e.t, e.h, e.w, e.tf, e.f, e.min, e.max); !errors.Is(err, e.want) {
			t.Errorf("SmartResize(%d, %d, %d, %d, %d, %d, %d): err = %v, want %v", e.t, e.h, e.w, e.tf, e.f, e.min, e.max, err, e.want)
		}
	}
}

// Vectors from glm4v_reference.sample_frames.
func TestSampleFrames(t *testing.T) {
	cases := []struct {
		total    int
		src, fps float64
		want     []int
	}{
		{37, 25, 2, []int{0, 13}},
		{50, 25, 2, []int{0, 13, 25, 38}},
		{13, 6.5, 2, []int{0, 4, 7, 10}},
		{61, 30, 2, []int{0, 15, 30, 45}},
		{10, 1, 2, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{45, 30, 4, []int{0, 8, 15, 23, 30, 38}},
		{9, 29.97, 2.5, []int{}},
	}
	for _, c := range cases {
		got, err := SampleFrames(c.total, c.src, c.fps)
		if err != nil || !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("SampleFrames(%d, %v, %v) = %v, %v; want %v", c.total, c.src, c.fps, got, err, c.want)
		}
	}
	long, err := SampleFrames(800, 2, 2)
	if err != nil || len(long) != 600 || !slices.Equal(long[:6], []int{0, 2, 3, 5, 6, 7}) || !slices.Equal(long[596:], []int{796, 798, 799, 799}) {
		t.Errorf("800 frames at 2 fps: %d indices %v…, %v", len(long), long[:min(6, len(long))], err)
	}
	errs := []struct {
		total    int
		src, fps float64
		want     error
	}{
		{0, 25, 2, vision.ErrTooSmall},
		{10, 0, 2, vision.ErrUnsupported},
		{10, 25, 0, vision.ErrBadOptions},
		{10, 25, 1e12, vision.ErrTooLarge},
		{1 << 30, 1, 1e9, vision.ErrTooLarge},
	}
	for _, e := range errs {
		if _, err := SampleFrames(e.total, e.src, e.fps); !errors.Is(err, e.want) {
			t.Errorf("SampleFrames(%d, %v, %v): err = %v, want %v", e.total, e.src, e.fps, err, e.want)
		}
	}
}

func TestGroupSeconds(t *testing.T) {
	cases := []struct {
		idx    []int
		fps    float64
		groups int
		want   []int
	}{
		{[]int{0, 13, 26, 39, 52, 52}, 6.5, 3, []int{0, 4, 8}},
		{[]int{0, 0}, 2, 3, []int{0, 0, 0}}, // fewer timestamps than groups: the last repeats
		{nil, 2, 2, []int{0, 0}},
		{[]int{0, 1, 2, 3, 4}, 10, 3, []int{0, 0, 0}},
		{[]int{25, 30, 75}, 25, 2, []int{1, 3}},
	}
	for _, c := range cases {
		if got := GroupSeconds(c.idx, c.fps, c.groups); !slices.Equal(got, c.want) {
			t.Errorf("GroupSeconds(%v, %v, %d) = %v, want %v", c.idx, c.fps, c.groups, got, c.want)
		}
	}
}

func TestPlanImageOverridesAndLimits(t *testing.T) {
	p := loadFixture(t, Options{})
	plan, err := p.PlanImage(2560, 1600, vision.Overrides{MaxPixels: 2007040})
	if err != nil {
		t.Fatal(err)
	}
	if 2*plan.Width*plan.Height > 2007040 || plan.GridT != 1 || plan.Cols != 1176 || plan.Rows != plan.GridH*plan.GridW {
		t.Errorf("max_pixels override: %+v", plan)
	}
	if _, err := p.PlanImage(10, 10, vision.Overrides{MaxPixels: -1}); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("negative override: err = %v", err)
	}
	limited, err := Load("testdata/glm-4.1v", Options{Options: qwenvl.Options{PixelLimit: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := limited.PlanImage(2560, 1600, vision.Overrides{}); !errors.Is(err, vision.ErrTooLarge) {
		t.Errorf("over the pixel limit: err = %v", err)
	}
	cfg := fixtureConfig(t)
	cfg.Image.DoResize = false
	noResize, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if plan, err := noResize.PlanImage(56, 84, vision.Overrides{}); err != nil || plan.Width != 56 || plan.Tokens != 6 {
		t.Errorf("do_resize off, aligned: %+v, %v", plan, err)
	}
	if _, err := noResize.PlanImage(57, 84, vision.Overrides{}); !errors.Is(err, vision.ErrBadInput) {
		t.Errorf("do_resize off, unaligned: err = %v", err)
	}
}

func TestPlanVideoRules(t *testing.T) {
	p := loadFixture(t, Options{})
	info := vision.VideoInfo{Width: 96, Height: 64, Frames: 37, FPS: 25}
	plain, err := p.PlanVideo(info, vision.VideoOverrides{})
	if err != nil {
		t.Fatal(err)
	}
	// Glm4vVideoProcessor has no num_frames or total_pixels: they change nothing.
	other, err := p.PlanVideo(info, vision.VideoOverrides{NumFrames: 9, TotalPixels: 5})
	if err != nil || !slices.Equal(other.Indices, plain.Indices) || other.Plan != plain.Plan {
		t.Errorf("num_frames / total_pixels changed the plan: %+v, %v", other, err)
	}
	if plain.Timestamps != nil || plain.SourceFPS != 25 || plain.SampleFPS != 0 {
		t.Errorf("plan metadata %+v", plain)
	}
	if _, err := p.PlanVideo(vision.VideoInfo{Width: 96, Height: 64, Frames: 37}, vision.VideoOverrides{}); !errors.Is(err, vision.ErrUnsupported) {
		t.Errorf("no fps: err = %v", err)
	}
	if _, err := p.PlanVideo(vision.VideoInfo{Width: 96, Height: 64, Frames: 0, FPS: 2}, vision.VideoOverrides{}); !errors.Is(err, vision.ErrTooSmall) {
		t.Errorf("no frames: err = %v", err)
	}
	if _, err := p.PlanVideo(info, vision.VideoOverrides{FPS: 1, NumFrames: 2}); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("fps with num_frames: err = %v", err)
	}
	cfg := fixtureConfig(t)
	cfg.SampleFrames = false
	all, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := all.PlanVideo(vision.VideoInfo{Width: 32, Height: 32, Frames: 769, FPS: 30}, vision.VideoOverrides{}); !errors.Is(err, vision.ErrTooLarge) {
		t.Errorf("769 frames, every one taken: err = %v", err)
	}
	if plan, err := all.PlanVideo(vision.VideoInfo{Width: 32, Height: 32, Frames: 769, FPS: 30}, vision.VideoOverrides{FPS: 2}); err != nil || len(plan.Indices) != 52 {
		t.Errorf("fps override samples although do_sample_frames is off: %d indices, %v", len(plan.Indices), err)
	}
}

func TestVideoPromptPads(t *testing.T) {
	info := vision.VideoInfo{Width: 96, Height: 64, Frames: 50, FPS: 25}
	for _, tc := range []struct {
		pad, want string
	}{{"", "<|image|>"}, {"<|video|>", "<|video|>"}} {
		p := loadFixture(t, Options{VideoFramePad: tc.pad})
		plan, err := p.PlanVideo(info, vision.VideoOverrides{})
		if err != nil {
			t.Fatal(err)
		}
		pr := p.VideoPrompt(plan)
		want := "<|begin_of_video|><|begin_of_image|>" + tc.want + "<|end_of_image|>0<|begin_of_image|>" + tc.want + "<|end_of_image|>1<|end_of_video|>"
		if pr.Text != want || pr.Pad != tc.want || !slices.Equal(pr.Runs, []int{6, 6}) {
			t.Errorf("pad %q: prompt %+v", tc.pad, pr)
		}
		if p.VideoAnchor() != "<|begin_of_video|><|video|><|end_of_video|>" || strings.Count(p.ImageAnchor(), "<|image|>") != 1 {
			t.Errorf("anchors %q %q", p.VideoAnchor(), p.ImageAnchor())
		}
	}
}

// Frames may arrive in any order and concurrently; the result is the same.
func TestStartVideoOutOfOrder(t *testing.T) {
	p := loadFixture(t, Options{Options: qwenvl.Options{Workers: 3}})
	plan, err := p.PlanVideo(vision.VideoInfo{Width: 60, Height: 40, Frames: 13, FPS: 6.5}, vision.VideoOverrides{})
	if err != nil {
		t.Fatal(err)
	}
	frames := make([]*imaging.RGB, len(plan.Indices))
	for k, i := range plan.Indices {
		frames[k] = visiontest.Synth(60, 40, i)
	}
	want := make([]byte, plan.Bytes(tensor.BFloat16))
	if _, err := p.ProcessVideo(context.Background(), frames, plan, tensor.BFloat16, want); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(want))
	sink, err := p.StartVideo(plan, tensor.BFloat16, got)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{3, 0, 2, 1} {
		if err := sink.Frame(context.Background(), k, frames[k]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sink.Finish(); err != nil || !slices.Equal(got, want) {
		t.Errorf("out of order: %v, equal %v", err, slices.Equal(got, want))
	}
	if _, err := p.StartVideo(plan, tensor.Float32, got); !errors.Is(err, vision.ErrBadInput) {
		t.Errorf("short dst: err = %v", err)
	}
}
