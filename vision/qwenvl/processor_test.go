package qwenvl

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

func TestPlanImage(t *testing.T) {
	q25, q3 := mustLoad(t, "qwen2.5-vl"), mustLoad(t, "qwen3-vl")
	tests := []struct {
		name string
		p    *Processor
		w, h int
		o    vision.Overrides
		want vision.Plan
	}{
		{"qwen2.5 2560x1600", q25, 2560, 1600, vision.Overrides{},
			mkPlan(2560, 1600, 2548, 1596, 1, 114, 182, 5187, 20748, 1176)},
		{"qwen3 2560x1600", q3, 2560, 1600, vision.Overrides{},
			mkPlan(2560, 1600, 2560, 1600, 1, 100, 160, 4000, 16000, 1536)},
		{"qwen3 1x1", q3, 1, 1, vision.Overrides{},
			mkPlan(1, 1, 256, 256, 1, 16, 16, 64, 256, 1536)},
		// Sizes cross-checked with a Python transcription of smart_resize.
		{"qwen2.5 max override", q25, 1920, 1080, vision.Overrides{MaxPixels: 1003520},
			mkPlan(1920, 1080, 1316, 728, 1, 52, 94, 1222, 4888, 1176)},
		{"qwen3 min override", q3, 100, 100, vision.Overrides{MinPixels: 4096},
			mkPlan(100, 100, 96, 96, 1, 6, 6, 9, 36, 1536)},
	}
	for _, tc := range tests {
		got, err := tc.p.PlanImage(tc.w, tc.h, tc.o)
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v\nwant %+v", tc.name, got, err, tc.want)
		}
		// Tokens are h·w/factor².
		f := tc.p.Config().Factor()
		if err == nil && got.Tokens != got.Width*got.Height/(f*f) {
			t.Errorf("%s: tokens %d", tc.name, got.Tokens)
		}
	}
	errTests := []struct {
		w, h int
		o    vision.Overrides
		want error
	}{
		{201, 1, vision.Overrides{}, vision.ErrAspectRatio},
		{0, 10, vision.Overrides{}, vision.ErrTooSmall},
		{10, 10, vision.Overrides{MinPixels: -5}, vision.ErrBadOptions},
		{10, 10, vision.Overrides{MinPixels: DefaultPixelLimit + 1}, vision.ErrTooLarge},
		{10, 10, vision.Overrides{MinPixels: 1 << 62}, vision.ErrTooLarge},
		{1 << 30, 1 << 29, vision.Overrides{}, vision.ErrTooLarge},
	}
	for _, tc := range errTests {
		if _, err := q25.PlanImage(tc.w, tc.h, tc.o); !errors.Is(err, tc.want) {
			t.Errorf("PlanImage(%d, %d, %+v): %v, want %v", tc.w, tc.h, tc.o, err, tc.want)
		}
	}
}

func TestPlanImagePixelLimit(t *testing.T) {
	p, err := Load("qwen3-vl", Options{PixelLimit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.PlanImage(1024, 1024, vision.Overrides{}); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if _, err := p.PlanImage(1056, 1024, vision.Overrides{}); !errors.Is(err, vision.ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := Load("qwen3-vl", Options{PixelLimit: -1}); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("negative limit: %v", err)
	}
}

// PlanImage never panics and its plans are self-consistent.
func FuzzPlanImage(f *testing.F) {
	f.Add(1920, 1080, 0, 0, false)
	f.Add(1, 200, 1<<40, 0, true)
	f.Add(5000, 30, 0, 1, false)
	procs := []*Processor{mustLoad(f, "qwen2.5-vl"), mustLoad(f, "qwen3-vl")}
	f.Fuzz(func(t *testing.T, w, h, minPx, maxPx int, qwen3 bool) {
		p := procs[0]
		if qwen3 {
			p = procs[1]
		}
		plan, err := p.PlanImage(w, h, vision.Overrides{MinPixels: minPx, MaxPixels: maxPx})
		if err != nil {
			for _, e := range []error{vision.ErrAspectRatio, vision.ErrTooSmall, vision.ErrTooLarge, vision.ErrBadOptions} {
				if errors.Is(err, e) {
					return
				}
			}
			t.Fatalf("(%d, %d, %d, %d): untyped error %v", w, h, minPx, maxPx, err)
		}
		f := p.Config().Factor()
		if plan.Width <= 0 || plan.Height <= 0 || plan.Width%f != 0 || plan.Height%f != 0 ||
			plan.Width*plan.Height > DefaultPixelLimit || plan.Tokens*f*f != plan.Width*plan.Height ||
			plan.Rows != plan.Tokens*4 || plan != p.planFor(w, h, plan.Width, plan.Height) {
			t.Fatalf("(%d, %d, %d, %d): bad plan %+v", w, h, minPx, maxPx, plan)
		}
	})
}

func TestPlanImageNoResize(t *testing.T) {
	cfg := presetMust(t, "qwen2.5-vl")
	cfg.DoResize = false
	p, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.PlanImage(56, 28, vision.Overrides{})
	if err != nil || plan.Width != 56 || plan.Height != 28 || plan.Tokens != 2 {
		t.Errorf("aligned: %+v, %v", plan, err)
	}
	if _, err := p.PlanImage(57, 28, vision.Overrides{}); !errors.Is(err, vision.ErrBadInput) {
		t.Errorf("unaligned: %v", err)
	}
}

// The resize stage is resample's Pillow-exact resize with the configured
// filter; the output is then the reference patchify of the resized image.
func TestProcessImageResizes(t *testing.T) {
	rs, err := resample.New(resample.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"qwen2.5-vl", "qwen3-vl"} {
		p := mustLoad(t, name)
		src := visiontest.Synth(123, 77, 9)
		plan, err := p.PlanImage(src.Width, src.Height, vision.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		resized, err := rs.Resize(context.Background(), src, plan.Width, plan.Height, resample.Bicubic)
		if err != nil {
			t.Fatal(err)
		}
		cfg := p.Config()
		want := encodeRef(t, refPixelValues(resized, &cfg), tensor.Float32)
		dst := make([]byte, plan.Bytes(tensor.Float32))
		before := bytes.Clone(src.Pix)
		tm, err := p.ProcessImage(context.Background(), src, plan, tensor.Float32, dst)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(dst, want) {
			t.Errorf("%s: differs from resample + reference at byte %d", name, firstDiff(dst, want))
		}
		if !bytes.Equal(src.Pix, before) {
			t.Errorf("%s: source modified", name)
		}
		if tm.Resize <= 0 || tm.NormalizePatchify <= 0 {
			t.Errorf("%s: timings %+v", name, tm)
		}
	}
}

// recordingResizer records the filter it was asked for.
type recordingResizer struct {
	mu      sync.Mutex
	filters []resample.Filter
}

func (r *recordingResizer) ResizeInto(ctx context.Context, dst, src *imaging.RGB, f resample.Filter) error {
	r.mu.Lock()
	r.filters = append(r.filters, f)
	r.mu.Unlock()
	return nil
}

func TestProcessImageFilterAndSkip(t *testing.T) {
	cfg := presetMust(t, "qwen2.5-vl")
	cfg.Resample = int(resample.Bilinear)
	rec := &recordingResizer{}
	p, err := New(cfg, Options{Resizer: rec})
	if err != nil {
		t.Fatal(err)
	}
	run := func(w, h int) vision.Timings {
		plan, err := p.PlanImage(w, h, vision.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		tm, err := p.ProcessImage(context.Background(), visiontest.Synth(w, h, 0), plan, tensor.BFloat16, make([]byte, plan.Bytes(tensor.BFloat16)))
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	if tm := run(56, 84); tm.Resize != 0 || len(rec.filters) != 0 {
		t.Errorf("aligned image was resized: %+v %v", tm, rec.filters)
	}
	run(60, 84)
	if len(rec.filters) != 1 || rec.filters[0] != resample.Bilinear {
		t.Errorf("filters %v", rec.filters)
	}
}

func TestProcessImageErrors(t *testing.T) {
	p := mustLoad(t, "qwen2.5-vl")
	img := visiontest.Synth(56, 56, 0)
	plan, err := p.PlanImage(56, 56, vision.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	good := make([]byte, plan.Bytes(tensor.Float32))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	bad := plan
	bad.Tokens++
	moved := plan
	moved.Width, moved.GridW, moved.Rows, moved.Tokens = 112, 8, 32, 8
	tests := []struct {
		name string
		ctx  context.Context
		img  *imaging.RGB
		plan vision.Plan
		dt   tensor.DType
		dst  []byte
		want error
	}{
		{"int64", context.Background(), img, plan, tensor.Int64, make([]byte, plan.Bytes(tensor.Int64)), vision.ErrUnsupported},
		{"short dst", context.Background(), img, plan, tensor.Float32, good[:len(good)-1], vision.ErrBadInput},
		{"wrong image", context.Background(), visiontest.Synth(57, 56, 0), plan, tensor.Float32, good, vision.ErrBadInput},
		{"nil image", context.Background(), nil, plan, tensor.Float32, good, vision.ErrBadInput},
		{"broken image", context.Background(), &imaging.RGB{Width: 56, Height: 56}, plan, tensor.Float32, good, vision.ErrBadInput},
		{"inconsistent plan", context.Background(), img, bad, tensor.Float32, good, vision.ErrBadInput},
		{"other plan", context.Background(), img, moved, tensor.Float32, make([]byte, moved.Bytes(tensor.Float32)), nil},
		{"cancelled", cancelled, img, plan, tensor.Float32, good, context.Canceled},
	}
	for _, tc := range tests {
		_, err := p.ProcessImage(tc.ctx, tc.img, tc.plan, tc.dt, tc.dst)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// Concurrent calls on one processor give the serial result (run with -race).
func TestProcessImageConcurrent(t *testing.T) {
	p, err := Load("qwen3-vl", Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	img := visiontest.Synth(300, 200, 3)
	plan, err := p.PlanImage(300, 200, vision.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, plan.Bytes(tensor.Float16))
	if _, err := p.ProcessImage(context.Background(), img, plan, tensor.Float16, want); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			dst := make([]byte, len(want))
			if _, err := p.ProcessImage(context.Background(), img, plan, tensor.Float16, dst); err != nil {
				errs[i] = err
			} else if !bytes.Equal(dst, want) {
				errs[i] = errors.New("output differs")
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
}

func mustLoad(t testing.TB, name string) *Processor {
	t.Helper()
	p, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mkPlan(sw, sh, w, h, gt, gh, gw, tokens, rows, cols int) vision.Plan {
	return vision.Plan{SourceWidth: sw, SourceHeight: sh, Width: w, Height: h,
		GridT: gt, GridH: gh, GridW: gw, Tokens: tokens, Rows: rows, Cols: cols}
}
