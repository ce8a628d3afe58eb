package resample

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// fanOut splits rows [0, n) into k nearly equal contiguous bands and runs fn
// on each in its own goroutine. The first error cancels the others.
func fanOut(ctx context.Context, k, n int, fn func(ctx context.Context, y0, y1 int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	for i := range k {
		y0, y1 := i*n/k, (i+1)*n/k
		if y0 == y1 {
			continue
		}
		g.Go(func() error { return fn(ctx, y0, y1) })
	}
	return g.Wait()
}

// checkEvery is how many output rows a band computes between checks of its
// context.
const checkEvery = 16
