package imageprep

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

// fakeDecoder returns a w×h gradient regardless of the bytes, or err.
type fakeDecoder struct {
	w, h     int
	err      error
	inflight atomic.Int32
	peak     atomic.Int32
	hold     time.Duration
}

func (d *fakeDecoder) DecodeRGB(ctx context.Context, data []byte) (Decoded, error) {
	n := d.inflight.Add(1)
	defer d.inflight.Add(-1)
	for {
		p := d.peak.Load()
		if n <= p || d.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(d.hold)
	if d.err != nil {
		return Decoded{}, d.err
	}
	img := imaging.NewRGB(d.w, d.h)
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	return Decoded{RGB: img, Format: "fake", Exact: true}, nil
}

func newTestPrep(t *testing.T, d Decoder, conc int) *Preprocessor {
	t.Helper()
	proc, err := qwenvl.Load("qwen2.5-vl")
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Options{Decoder: d, Processor: proc, Concurrency: conc})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNewRejectsBadOptions(t *testing.T) {
	proc, err := qwenvl.Load("qwen2.5-vl")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{
		{Processor: proc},
		{Decoder: &fakeDecoder{w: 1, h: 1}},
		{Decoder: &fakeDecoder{w: 1, h: 1}, Processor: proc, Concurrency: -1},
	} {
		if _, err := New(o); !errors.Is(err, ErrOptions) {
			t.Errorf("New(%+v) = %v, want ErrOptions", o, err)
		}
	}
}

func TestImageStagesAndErrors(t *testing.T) {
	ctx := context.Background()
	decErr := errors.New("broken bytes")
	tests := []struct {
		name      string
		dec       *fakeDecoder
		alloc     Allocator
		dtype     tensor.DType
		wantStage Stage
		wantIs    error
	}{
		{name: "ok float32", dec: &fakeDecoder{w: 57, h: 41}},
		{name: "ok bfloat16", dec: &fakeDecoder{w: 57, h: 41}, dtype: tensor.BFloat16},
		{name: "decode error", dec: &fakeDecoder{err: decErr}, wantStage: StageDecode, wantIs: decErr},
		{name: "aspect ratio", dec: &fakeDecoder{w: 201, h: 1}, wantStage: StagePlan, wantIs: vision.ErrAspectRatio},
		{name: "allocator error", dec: &fakeDecoder{w: 57, h: 41}, alloc: func(int) ([]byte, error) { return nil, decErr },
			wantStage: StageAllocate, wantIs: decErr},
		{name: "allocator short", dec: &fakeDecoder{w: 57, h: 41}, alloc: func(n int) ([]byte, error) { return make([]byte, n-1), nil },
			wantStage: StageAllocate, wantIs: ErrAllocation},
		{name: "int dtype", dec: &fakeDecoder{w: 57, h: 41}, dtype: tensor.Int64, wantStage: StageProcess, wantIs: vision.ErrUnsupported},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPrep(t, tc.dec, 0)
			res, err := p.Image(ctx, Request{Data: []byte("x"), DType: tc.dtype, Alloc: tc.alloc})
			if tc.wantStage != "" {
				if StageOf(err) != tc.wantStage || !errors.Is(err, tc.wantIs) {
					t.Fatalf("err = %v (stage %q), want stage %q wrapping %v", err, StageOf(err), tc.wantStage, tc.wantIs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			dt := tc.dtype
			if dt == 0 {
				dt = tensor.Float32
			}
			// 57×41 at Qwen2.5 defaults grows to 56×84 (h, w) = grid 4×6 after smart_resize.
			if res.DType != dt || len(res.Data) != res.Plan.Bytes(dt) || res.Tokens() != res.Plan.Tokens ||
				res.Plan.Rows*res.Plan.Cols*dt.Size() != len(res.Data) || !res.Exact || res.Format != "fake" {
				t.Fatalf("result %+v", res)
			}
			if res.Timings.Decode <= 0 || res.Timings.NormalizePatchify <= 0 {
				t.Errorf("timings %+v", res.Timings)
			}
		})
	}
}

// The same image through the pipeline and through the processor directly
// must give identical bytes: the pipeline adds no conversion of its own.
func TestImageMatchesProcessor(t *testing.T) {
	ctx := context.Background()
	d := &fakeDecoder{w: 91, h: 67}
	p := newTestPrep(t, d, 0)
	res, err := p.Image(ctx, Request{Data: []byte("x")})
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := d.DecodeRGB(ctx, nil)
	plan, err := p.Processor().PlanImage(91, 67, vision.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, plan.Bytes(tensor.Float32))
	if _, err := p.Processor().ProcessImage(ctx, dec.RGB, plan, tensor.Float32, want); err != nil {
		t.Fatal(err)
	}
	if string(want) != string(res.Data) || plan != res.Plan {
		t.Fatal("pipeline output differs from the processor's")
	}
}

func TestConcurrencyBound(t *testing.T) {
	d := &fakeDecoder{w: 30, h: 30, hold: 20 * time.Millisecond}
	p := newTestPrep(t, d, 2)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := p.Image(context.Background(), Request{Data: []byte("x")}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := d.peak.Load(); got > 2 || got < 1 {
		t.Fatalf("peak concurrent decodes = %d, want 1..2", got)
	}
}

func TestCancelWhileWaiting(t *testing.T) {
	d := &fakeDecoder{w: 30, h: 30, hold: 200 * time.Millisecond}
	p := newTestPrep(t, d, 1)
	go p.Image(context.Background(), Request{Data: []byte("x")})
	time.Sleep(20 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := p.Image(ctx, Request{Data: []byte("x")}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
}

func TestPlanFromHeaders(t *testing.T) {
	p := newTestPrep(t, &fakeDecoder{w: 10, h: 10}, 0)
	if _, err := p.Plan([]byte("x"), vision.Overrides{}); !errors.Is(err, ErrOptions) {
		t.Fatalf("Plan without a Prober: %v, want ErrOptions", err)
	}
}
