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
