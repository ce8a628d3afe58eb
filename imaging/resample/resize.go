package resample

import (
	"context"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/mmgate/mmgate/imaging"
)

// Options configures a Resizer. The zero value is the default.
type Options struct {
	// Workers is the number of goroutines one call may use: 0 means
	// runtime.GOMAXPROCS(0) at call time, 1 means serial. The result does
	// not depend on it.
	Workers int
	// NoTallRule disables the Pillow ≥ 12.2 rule that resizes an image more
	// than 100 times taller than wide vertically first (when its height
	// shrinks). With it set, the result equals Pillow releases before 12.2.
	NoTallRule bool
	// CacheEntries bounds the number of cached coefficient tables: 0 means
	// DefaultCacheEntries, a negative value disables the cache.
	CacheEntries int
}

// DefaultCacheEntries is the table cache bound when Options.CacheEntries is 0.
const DefaultCacheEntries = 64

// minParallelPixels is the smallest output, in pixels, split across workers;
// below it the goroutine overhead outweighs the gain.
const minParallelPixels = 1 << 14

// Resizer resizes RGB images exactly as Pillow's Image.resize does. It is
// safe for concurrent use; its only state is the coefficient table cache.
type Resizer struct {
	workers int
	tall    bool
	cache   *tableCache
}

// New returns a Resizer configured by o.
func New(o Options) (*Resizer, error) {
	if o.Workers < 0 {
		return nil, fmt.Errorf("resample: workers %d: %w", o.Workers, ErrInvalid)
	}
	n := o.CacheEntries
	if n == 0 {
		n = DefaultCacheEntries
	}
	return &Resizer{workers: o.Workers, tall: !o.NoTallRule, cache: newTableCache(n)}, nil
}

// Resize returns src resized to width×height with filter f.
func (r *Resizer) Resize(ctx context.Context, src *imaging.RGB, width, height int, f Filter) (*imaging.RGB, error) {
	if err := sizeKind(width, height); err != nil {
		return nil, fmt.Errorf("resample: resize to %dx%d: %w", width, height, err)
	}
	dst := imaging.NewRGB(width, height)
	if err := r.ResizeInto(ctx, dst, src, f); err != nil {
		return nil, err
	}
	return dst, nil
}

// ResizeInto resizes src into dst, whose Width and Height give the output
// size and whose Pix must hold exactly Width·Height·3 samples. Every sample
// of dst is written. dst must not overlap src. Apart from the per-worker row
// buffers (a few rows of the output width) it allocates nothing once the
// coefficient tables are cached.
func (r *Resizer) ResizeInto(ctx context.Context, dst, src *imaging.RGB, f Filter) error {
	if err := r.check(dst, src, f); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if dst.Width == src.Width && dst.Height == src.Height {
		copy(dst.Pix, src.Pix)
		return nil
	}
	if f == Nearest {
		return r.nearest(ctx, dst, src)
	}
	k, _ := kernelOf(f)
	p := pass{dst: dst, src: src}
	p.vt = r.cache.get(tableKey{src.Height, dst.Height, f}, k)
	if dst.Width != src.Width {
		p.ht = r.cache.get(tableKey{src.Width, dst.Width, f}, k)
	}
	p.tall = r.tall && src.Height > 100*src.Width && dst.Height < src.Height
	return r.bands(ctx, dst, p.run)
}

func (r *Resizer) check(dst, src *imaging.RGB, f Filter) error {
	if !f.valid() {
		return fmt.Errorf("resample: %v: %w", f, ErrUnsupported)
	}
	if src == nil || dst == nil {
		return fmt.Errorf("resample: nil image: %w", ErrInvalid)
	}
	if err := src.Validate(); err != nil {
		return fmt.Errorf("resample: source: %w: %v", ErrInvalid, err)
	}
	if err := dst.Validate(); err != nil {
		return fmt.Errorf("resample: destination: %w: %v", ErrInvalid, err)
	}
	if err := sizeKind(src.Width, src.Height, dst.Width, dst.Height); err != nil {
		return fmt.Errorf("resample: %dx%d to %dx%d: %w", src.Width, src.Height, dst.Width, dst.Height, err)
	}
	if overlap(dst.Pix, src.Pix) {
		return fmt.Errorf("resample: destination overlaps source: %w", ErrInvalid)
	}
	return nil
}

func overlap(a, b []uint8) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// bands runs fn over the output rows, split into contiguous bands, one per
// worker. Each band computes exactly the rows it owns, so the result does
// not depend on the split.
func (r *Resizer) bands(ctx context.Context, dst *imaging.RGB, fn func(ctx context.Context, y0, y1 int) error) error {
	w := r.workers
	if w == 0 {
		w = runtime.GOMAXPROCS(0)
	}
	if dst.Width*dst.Height < minParallelPixels {
		w = 1
	}
	w = min(w, dst.Height)
	if w <= 1 {
		return fn(ctx, 0, dst.Height)
	}
	return fanOut(ctx, w, dst.Height, fn)
}
