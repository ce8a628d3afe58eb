package planar

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/norm"
)

var (
	clipMean, clipStd = norm.OpenAICLIP()
	half              = [3]float64{0.5, 0.5, 0.5}
)

func randomRGB(r *rand.Rand, w, h int) *imaging.RGB {
	img := imaging.NewRGB(w, h)
	for i := range img.Pix {
		img.Pix[i] = uint8(r.UintN(256))
	}
	return img
}

// referenceWrite is the obvious per-element form of Write.
func referenceWrite(views []View, p norm.Params, dt tensor.DType) []byte {
	var out []byte
	el := make([]byte, dt.Size())
	for _, v := range views {
		for c := range 3 {
			for y := range v.H {
				for x := range v.W {
					sx, sy := v.X+x, v.Y+y
					var s uint8
					if sx >= 0 && sy >= 0 && sx < v.Src.Width && sy < v.Src.Height {
						s = v.Src.Pix[(sy*v.Src.Width+sx)*3+c]
					}
					tensor.PutFloat32(el, p.Value(c, s), dt)
					out = append(out, el...)
				}
			}
		}
	}
	return out
}

// Write equals the reference on random windows (inside, overlapping every
// edge, fully outside) for every dtype and worker count.
func TestWriteMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	p := norm.Params{Rescale: norm.DefaultRescale, Mean: clipMean, Std: clipStd, DoRescale: true, DoNormalize: true}
	n := norm.New(p)
	for trial := range 60 {
		src := randomRGB(r, 1+r.IntN(90), 1+r.IntN(90))
		views := make([]View, 1+r.IntN(4))
		for i := range views {
			w, h := 1+r.IntN(120), 1+r.IntN(120)
			views[i] = View{Src: src, X: r.IntN(src.Width+80) - 60, Y: r.IntN(src.Height+80) - 60, W: w, H: h}
		}
		if trial%3 == 0 { // large enough to be split across goroutines
			views = append(views, View{Src: src, X: -7, Y: 3, W: 300, H: 250})
		}
		for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16, tensor.Float16} {
			want := referenceWrite(views, p, dt)
			for _, workers := range []int{1, 3, 7} {
				got := make([]byte, len(want))
				if err := Write(context.Background(), got, views, n, dt, workers); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("trial %d %v workers %d: differs from the reference", trial, dt, workers)
				}
			}
		}
	}
}

func TestWriteErrors(t *testing.T) {
	n := norm.New(norm.Params{Rescale: 1, Std: half, DoNormalize: true})
	src := imaging.NewRGB(4, 4)
	ok := []View{{Src: src, W: 4, H: 4}}
	ctx := context.Background()
	tests := []struct {
		name  string
		dst   []byte
		views []View
		n     *norm.Table
		dt    tensor.DType
		want  error
	}{
		{"dtype", make([]byte, 48), ok, n, tensor.Int64, vision.ErrUnsupported},
		{"short dst", make([]byte, 47*4), ok, n, tensor.Float32, vision.ErrBadInput},
		{"nil norm", make([]byte, 48*4), ok, nil, tensor.Float32, vision.ErrBadInput},
		{"nil src", make([]byte, 0), []View{{W: 1, H: 1}}, n, tensor.Float32, vision.ErrBadInput},
		{"empty view", make([]byte, 0), []View{{Src: src}}, n, tensor.Float32, vision.ErrBadInput},
		{"bad src", make([]byte, 12), []View{{Src: &imaging.RGB{Width: 2, Height: 2}, W: 1, H: 1}}, n, tensor.Float32, vision.ErrBadInput},
	}
	for _, tc := range tests {
		if err := Write(ctx, tc.dst, tc.views, tc.n, tc.dt, 1); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := Write(cctx, make([]byte, 48*4), ok, n, tensor.Float32, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestSpan(t *testing.T) {
	tests := []struct{ o, n, size, a, b int }{
		{0, 5, 10, 0, 5}, {-3, 5, 10, 3, 5}, {8, 5, 10, 0, 2}, {-10, 5, 10, 5, 5}, {12, 5, 10, 0, 0}, {-2, 20, 10, 2, 12},
	}
	for _, tc := range tests {
		if a, b := span(tc.o, tc.n, tc.size); a != tc.a || b != tc.b {
			t.Errorf("span(%d, %d, %d) = %d, %d; want %d, %d", tc.o, tc.n, tc.size, a, b, tc.a, tc.b)
		}
	}
}
