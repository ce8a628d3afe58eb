package resample

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mmgate/mmgate/imaging"
)

// randomCase draws a small resize case.
func randomCase(rng *rand.Rand) (src *imaging.RGB, w, h int, f Filter) {
	size := func() int {
		if rng.IntN(3) == 0 {
			return 1 + rng.IntN(6)
		}
		return 1 + rng.IntN(90)
	}
	pats := []pattern{patNoise, patEdges, patBinary}
	src = patternImage(size(), size(), pats[rng.IntN(3)], rng.Uint64()>>40)
	return src, size(), size(), Filter(rng.IntN(6))
}

// The fast path must equal the slow transcription (reference_test.go)
// exactly.
func TestMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	fast := newResizer(t, Options{Workers: 1})
	fastOld := newResizer(t, Options{Workers: 1, NoTallRule: true})
	n := 400
	if testing.Short() {
		n = 100
	}
	for i := range n {
		src, w, h, f := randomCase(rng)
		if i%10 == 0 { // a tall source, sometimes
			src = patternImage(1+rng.IntN(3), 301+rng.IntN(200), patNoise, uint64(i))
		}
		for _, old := range []bool{false, true} {
			r := fast
			if old {
				r = fastOld
			}
			got, err := r.Resize(ctx, src, w, h, f)
			if err != nil {
				t.Fatal(err)
			}
			want := refResize(src, w, h, f, !old)
			if !slices.Equal(got.Pix, want.Pix) {
				t.Fatalf("%dx%d→%dx%d %v (no tall rule: %v): fast path differs from the reference", src.Width, src.Height, w, h, f, old)
			}
		}
	}
}

// Banding must not change a single sample.
func TestParallelEqualsSerial(t *testing.T) {
	ctx := context.Background()
	serial := newResizer(t, Options{Workers: 1})
	sizes := [][4]int{
		{300, 200, 297, 203}, {200, 300, 100, 150}, {129, 517, 257, 131}, {1000, 40, 300, 170},
		{60, 7000, 40, 3000}, {640, 480, 644, 476}, {333, 222, 1000, 700}, {256, 256, 1, 256},
		{256, 256, 256, 1}, {500, 500, 500, 77}, {500, 500, 77, 500},
	}
	for _, workers := range []int{2, 3, 7, 16} {
		par := newResizer(t, Options{Workers: workers})
		for _, s := range sizes {
			src := patternImage(s[0], s[1], patEdges, uint64(s[2]))
			for f := Nearest; f <= Hamming; f++ {
				name := fmt.Sprintf("%d workers %dx%d→%dx%d %v", workers, s[0], s[1], s[2], s[3], f)
				a, err := serial.Resize(ctx, src, s[2], s[3], f)
				if err != nil {
					t.Fatal(name, err)
				}
				b, err := par.Resize(ctx, src, s[2], s[3], f)
				if err != nil {
					t.Fatal(name, err)
				}
				if !slices.Equal(a.Pix, b.Pix) {
					t.Fatalf("%s: parallel result differs from serial", name)
				}
			}
		}
	}
}

func TestResizeIntoReusesDestination(t *testing.T) {
	ctx := context.Background()
	r := newResizer(t, Options{})
	src := patternImage(300, 200, patSynthetic, 3)
	dst := imaging.NewRGB(150, 100)
	for i := range dst.Pix {
		dst.Pix[i] = 0xAA // every sample must be overwritten
	}
	if err := r.ResizeInto(ctx, dst, src, Bicubic); err != nil {
		t.Fatal(err)
	}
	want := refResize(src, 150, 100, Bicubic, true)
	if !slices.Equal(dst.Pix, want.Pix) {
		t.Fatal("ResizeInto differs from the reference")
	}
}

// One Resizer shared by many goroutines, with a cache small enough to
// evict constantly, gives every caller the right pixels.
func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	shared := newResizer(t, Options{Workers: 2, CacheEntries: 2})
	src := patternImage(97, 61, patEdges, 9)
	type job struct{ w, h int }
	jobs := []job{{50, 30}, {97, 40}, {120, 61}, {33, 77}, {10, 10}, {200, 150}}
	want := make([][]uint8, len(jobs))
	for i, j := range jobs {
		want[i] = refResize(src, j.w, j.h, Bicubic, true).Pix
	}
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for round := range 10 {
				i := (g + round) % len(jobs)
				got, err := shared.Resize(ctx, src, jobs[i].w, jobs[i].h, Bicubic)
				if err == nil && !slices.Equal(got.Pix, want[i]) {
					err = fmt.Errorf("goroutine %d: %dx%d differs from the reference", g, jobs[i].w, jobs[i].h)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
