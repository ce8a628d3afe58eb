package resample

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mmgate/mmgate/imaging"
)

func newResizer(t testing.TB, o Options) *Resizer {
	t.Helper()
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func rgbOf(w, h int, px [][3]uint8) *imaging.RGB {
	m := imaging.NewRGB(w, h)
	for i, p := range px {
		copy(m.Pix[i*3:], p[:])
	}
	return m
}

// The 5×3 image of docs/preprocessing.md ("Checked vectors") to 3×2 and 7×4
// (Pillow 9.4.0).
func TestSpecImage(t *testing.T) {
	src := rgbOf(5, 3, [][3]uint8{
		{0, 0, 0}, {255, 255, 255}, {10, 200, 30}, {90, 90, 90}, {255, 0, 0},
		{5, 6, 7}, {250, 128, 3}, {0, 255, 0}, {33, 66, 99}, {1, 2, 3},
		{200, 100, 50}, {25, 50, 75}, {255, 255, 0}, {0, 0, 255}, {128, 128, 128},
	})
	r := newResizer(t, Options{})
	got, err := r.Resize(context.Background(), src, 3, 2, Bicubic)
	if err != nil {
		t.Fatal(err)
	}
	want := rgbOf(3, 2, [][3]uint8{
		{111, 92, 71}, {74, 201, 73}, {118, 28, 31},
		{123, 71, 32}, {116, 167, 54}, {44, 57, 138},
	})
	if !slices.Equal(got.Pix, want.Pix) {
		t.Errorf("5x3→3x2 = %v, want %v", got.Pix, want.Pix)
	}
	got, err = r.Resize(context.Background(), src, 7, 4, Bicubic)
	if err != nil {
		t.Fatal(err)
	}
	row0 := rgbOf(7, 1, [][3]uint8{
		{0, 0, 0}, {159, 150, 166}, {212, 255, 228}, {11, 197, 32}, {53, 122, 75}, {176, 44, 54}, {255, 0, 0},
	})
	if !slices.Equal(got.Row(0), row0.Pix) {
		t.Errorf("5x3→7x4 row 0 = %v, want %v", got.Row(0), row0.Pix)
	}
}

func TestSameSizeIsCopy(t *testing.T) {
	src := patternImage(17, 9, patNoise, 5)
	r := newResizer(t, Options{})
	for f := Nearest; f <= Hamming; f++ {
		got, err := r.Resize(context.Background(), src, 17, 9, f)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Pix, src.Pix) {
			t.Errorf("%v: same-size resize is not a copy", f)
		}
		if &got.Pix[0] == &src.Pix[0] {
			t.Errorf("%v: same-size resize shares the source buffer", f)
		}
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	r := newResizer(t, Options{})
	src := imaging.NewRGB(4, 4)
	if _, err := New(Options{Workers: -1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("New(Workers: -1) = %v", err)
	}
	tests := []struct {
		name string
		run  func() error
		want error
	}{
		{"zero width", func() error { _, err := r.Resize(ctx, src, 0, 3, Bicubic); return err }, ErrInvalid},
		{"negative height", func() error { _, err := r.Resize(ctx, src, 3, -3, Bicubic); return err }, ErrInvalid},
		{"huge", func() error { _, err := r.Resize(ctx, src, MaxSide+1, 1, Bicubic); return err }, ErrTooLarge},
		{"bad filter", func() error { _, err := r.Resize(ctx, src, 3, 3, Filter(6)); return err }, ErrUnsupported},
		{"nil source", func() error { _, err := r.Resize(ctx, nil, 3, 3, Bicubic); return err }, ErrInvalid},
		{"empty source", func() error { _, err := r.Resize(ctx, imaging.NewRGB(0, 4), 3, 3, Bicubic); return err }, ErrInvalid},
		{"short Pix", func() error {
			_, err := r.Resize(ctx, &imaging.RGB{Pix: make([]uint8, 5), Width: 2, Height: 1}, 3, 3, Bicubic)
			return err
		}, ErrInvalid},
		{"nil destination", func() error { return r.ResizeInto(ctx, nil, src, Bicubic) }, ErrInvalid},
		{"overlap", func() error {
			big := imaging.NewRGB(8, 8)
			dst := &imaging.RGB{Pix: big.Pix[3 : 3+2*2*3], Width: 2, Height: 2}
			return r.ResizeInto(ctx, dst, big, Bicubic)
		}, ErrInvalid},
	}
	for _, tc := range tests {
		if err := tc.run(); !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.Resize(cancelled, src, 3, 3, Bicubic); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestCacheBounded(t *testing.T) {
	r := newResizer(t, Options{CacheEntries: 3})
	src := patternImage(20, 20, patNoise, 1)
	ctx := context.Background()
	for w := 1; w <= 10; w++ {
		if _, err := r.Resize(ctx, src, w, 7, Bicubic); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.cache.len(); n != 3 {
		t.Errorf("cache holds %d tables, want 3", n)
	}
	// A cache-free Resizer gives the same pixels.
	nc := newResizer(t, Options{CacheEntries: -1})
	a, _ := r.Resize(ctx, src, 9, 13, Lanczos)
	b, _ := nc.Resize(ctx, src, 9, 13, Lanczos)
	if !slices.Equal(a.Pix, b.Pix) {
		t.Error("cached and uncached results differ")
	}
}
