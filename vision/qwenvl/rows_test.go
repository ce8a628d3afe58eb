package qwenvl

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

// imageRows reads an in-memory image's rows.
type imageRows struct {
	img  *imaging.RGB
	next int
}

func (r *imageRows) Read(dst []uint8, n int) error {
	if r.next+n > r.img.Height {
		return errors.New("read past the last row")
	}
	s := r.img.Stride()
	copy(dst, r.img.Pix[r.next*s:(r.next+n)*s])
	r.next += n
	return nil
}

// ProcessRows writes ProcessImage's bytes for every dtype, for resized and
// already-sized images, with and without the vector kernel's geometry.
func TestProcessRowsEqualsProcessImage(t *testing.T) {
	ctx := context.Background()
	sizes := [][2]int{{123, 77}, {640, 480}, {56, 28}, {28, 300}, {1000, 29}, {112, 56}, {128, 64}}
	for _, name := range []string{"qwen2-vl", "qwen2.5-vl", "qwen3-vl"} {
		p := mustLoad(t, name)
		for i, sz := range sizes {
			src := visiontest.Synth(sz[0], sz[1], i)
			plan, err := p.PlanImage(src.Width, src.Height, vision.Overrides{})
			if err != nil {
				t.Fatal(err)
			}
			if !p.StreamsPlan(plan) {
				t.Fatalf("%s %v: plan does not stream", name, sz)
			}
			for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16, tensor.Float16} {
				want := make([]byte, plan.Bytes(dt))
				if _, err := p.ProcessImage(ctx, src, plan, dt, want); err != nil {
					t.Fatal(err)
				}
				got := make([]byte, len(want))
				in := &imageRows{img: src}
				if _, err := p.ProcessRows(ctx, in, plan, dt, got); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s %dx%d %s: differs at byte %d", name, sz[0], sz[1], dt, firstDiff(got, want))
				}
				if in.next != src.Height {
					t.Errorf("%s %v: %d of %d rows read", name, sz, in.next, src.Height)
				}
				var streamed bytes.Buffer
				in = &imageRows{img: src}
				if _, err := p.StreamRows(ctx, in, plan, dt, &streamed); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(streamed.Bytes(), want) {
					t.Errorf("%s %dx%d %s: streamed bytes differ at byte %d", name, sz[0], sz[1], dt, firstDiff(streamed.Bytes(), want))
				}
			}
		}
	}
}

// A plan of another size, a wrong dst and an integer dtype are refused
// before any row is read.
func TestProcessRowsErrors(t *testing.T) {
	p := mustLoad(t, "qwen2.5-vl")
	src := visiontest.Synth(100, 60, 1)
	plan, err := p.PlanImage(100, 60, vision.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	bad := plan
	bad.Rows++
	cases := []struct {
		plan vision.Plan
		dt   tensor.DType
		dst  []byte
		want error
	}{
		{bad, tensor.Float32, make([]byte, plan.Bytes(tensor.Float32)), vision.ErrBadInput},
		{plan, tensor.Float32, make([]byte, 3), vision.ErrBadInput},
		{plan, tensor.Int64, make([]byte, plan.Bytes(tensor.Int64)), vision.ErrUnsupported},
	}
	for i, c := range cases {
		in := &imageRows{img: src}
		if _, err := p.ProcessRows(ctx, in, c.plan, c.dt, c.dst); !errors.Is(err, c.want) {
			t.Errorf("case %d: err = %v, want %v", i, err, c.want)
		}
		if in.next != 0 {
			t.Errorf("case %d: %d rows read", i, in.next)
		}
	}
	rec := &recordingResizer{}
	q, err := New(presetMust(t, "qwen2.5-vl"), Options{Resizer: rec})
	if err != nil {
		t.Fatal(err)
	}
	if q.StreamsPlan(plan) {
		t.Error("a processor whose resizer cannot stream claims to")
	}
}

// failAfter is a writer that fails once it has taken n bytes.
type failAfter struct {
	n, took int
	writes  int
}

var errFull = errors.New("full")

func (f *failAfter) Write(b []byte) (int, error) {
	f.writes++
	if f.took+len(b) > f.n {
		return 0, errFull
	}
	f.took += len(b)
	return len(b), nil
}

// StreamRows writes one block row per call, refuses what ProcessRows
// refuses before reading a row, and stops at its writer's first error,
// which it returns wrapped.
func TestStreamRowsWriter(t *testing.T) {
	p := mustLoad(t, "qwen2.5-vl")
	src := visiontest.Synth(300, 200, 3)
	plan, err := p.PlanImage(src.Width, src.Height, vision.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	block := plan.Bytes(tensor.Float32) / (plan.GridH / 2)
	w := &failAfter{n: 1 << 30}
	if _, err := p.StreamRows(ctx, &imageRows{img: src}, plan, tensor.Float32, w); err != nil {
		t.Fatal(err)
	}
	if w.writes != plan.GridH/2 || w.took != plan.Bytes(tensor.Float32) {
		t.Errorf("%d writes of %d bytes, want %d of %d", w.writes, w.took, plan.GridH/2, plan.Bytes(tensor.Float32))
	}
	w = &failAfter{n: 2 * block}
	in := &imageRows{img: src}
	if _, err := p.StreamRows(ctx, in, plan, tensor.Float32, w); !errors.Is(err, errFull) {
		t.Errorf("err = %v, want the writer's", err)
	}
	if w.writes != 3 || in.next == src.Height {
		t.Errorf("%d writes and %d of %d rows read after the writer failed on its third", w.writes, in.next, src.Height)
	}
	in = &imageRows{img: src}
	if _, err := p.StreamRows(ctx, in, plan, tensor.Int64, w); !errors.Is(err, vision.ErrUnsupported) || in.next != 0 {
		t.Errorf("integer dtype: err = %v after %d rows, want ErrUnsupported before any", err, in.next)
	}
}
