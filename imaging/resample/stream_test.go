package resample

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mmgate/mmgate/imaging"
)

// memRows reads an in-memory image's rows, counting them.
type memRows struct {
	img  *imaging.RGB
	next int
	fail int // a read past this many rows fails (0: never)
}

var errRead = errors.New("read failed")

func (m *memRows) Read(dst []uint8, n int) error {
	if m.fail > 0 && m.next+n > m.fail {
		return errRead
	}
	if m.next+n > m.img.Height {
		return errors.New("read past the last row")
	}
	s := m.img.Stride()
	copy(dst[:n*s], m.img.Pix[m.next*s:(m.next+n)*s])
	m.next += n
	return nil
}

// streamResize runs ResizeRows and stitches its bands into one image.
func streamResize(t *testing.T, r *Resizer, src *imaging.RGB, w, h, bandH int, f Filter) *imaging.RGB {
	t.Helper()
	out := imaging.NewRGB(w, h)
	band := imaging.NewRGB(w, bandH)
	in := &memRows{img: src}
	next := 0
	err := r.ResizeRows(context.Background(), in, src.Width, src.Height, band, h, f, func(y0, n int) error {
		if y0 != next || n <= 0 || n > bandH {
			t.Fatalf("emit(%d, %d) after %d rows", y0, n, next)
		}
		copy(out.Pix[y0*out.Stride():], band.Pix[:n*band.Stride()])
		next = y0 + n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if next != h || in.next != src.Height {
		t.Fatalf("%d of %d rows emitted, %d of %d source rows read", next, h, in.next, src.Height)
	}
	return out
}

// Streaming must give ResizeInto's bytes for every filter, size pair and
// band height, the same-size copy and the single-axis resizes included.
func TestResizeRowsEqualsResizeInto(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	r := newResizer(t, Options{Workers: 1})
	n := 400
	if testing.Short() {
		n = 100
	}
	for i := range n {
		src, w, h, f := randomCase(rng)
		switch i % 5 {
		case 1:
			w = src.Width
		case 2:
			h = src.Height
		case 3:
			w, h = src.Width, src.Height
		}
		if !r.Streams(src.Width, src.Height, w, h, f) {
			if f != Nearest {
				t.Fatalf("%dx%d→%dx%d %v is not streamed", src.Width, src.Height, w, h, f)
			}
			continue
		}
		want, err := r.Resize(ctx, src, w, h, f)
		if err != nil {
			t.Fatal(err)
		}
		got := streamResize(t, r, src, w, h, 1+rng.IntN(30), f)
		if !slices.Equal(got.Pix, want.Pix) {
			t.Fatalf("%dx%d→%dx%d %v: streamed rows differ from ResizeInto", src.Width, src.Height, w, h, f)
		}
	}
}

// A photo-sized downscale, the case the preprocess command streams.
func TestResizeRowsLarge(t *testing.T) {
	r := newResizer(t, Options{})
	src := patternImage(640, 400, patNoise, 9)
	want, err := r.Resize(context.Background(), src, 616, 392, Bicubic)
	if err != nil {
		t.Fatal(err)
	}
	if got := streamResize(t, r, src, 616, 392, 28, Bicubic); !slices.Equal(got.Pix, want.Pix) {
		t.Fatal("streamed rows differ from ResizeInto")
	}
}

// Errors from the reader and from emit end the call with that error, and a
// resize Streams refuses is an ErrInvalid.
func TestResizeRowsErrors(t *testing.T) {
	r := newResizer(t, Options{})
	src := patternImage(50, 40, patNoise, 1)
	band := imaging.NewRGB(30, 8)
	ctx := context.Background()
	for _, fail := range []int{1, 20, 39} {
		in := &memRows{img: src, fail: fail}
		err := r.ResizeRows(ctx, in, 50, 40, band, 24, Bicubic, func(int, int) error { return nil })
		if !errors.Is(err, errRead) {
			t.Errorf("read failing at row %d: err = %v", fail, err)
		}
	}
	errEmit := errors.New("emit failed")
	err := r.ResizeRows(ctx, &memRows{img: src}, 50, 40, band, 24, Bicubic, func(int, int) error { return errEmit })
	if !errors.Is(err, errEmit) {
		t.Errorf("emit error: err = %v", err)
	}
	if err := r.ResizeRows(ctx, &memRows{img: src}, 50, 40, band, 24, Nearest, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("nearest: err = %v, want ErrInvalid", err)
	}
	tall := patternImage(2, 300, patNoise, 1)
	if r.Streams(tall.Width, tall.Height, 3, 100, Bicubic) {
		t.Error("the tall-image order is streamed")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := r.ResizeRows(cctx, &memRows{img: src}, 50, 40, band, 24, Bicubic, func(int, int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}
