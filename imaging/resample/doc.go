// Package resample resizes 8-bit RGB images (imaging.RGB) bit for bit as
// Pillow's Image.resize does, for the filters NEAREST, BOX, BILINEAR,
// HAMMING, BICUBIC and LANCZOS.
//
// # Contract
//
// The output equals Pillow's (x86-64 builds, which do not fuse multiply-add)
// for every size and filter, by the steps of docs/preprocessing.md ("Resize:
// Pillow's resampler"):
//
//   - A resize to the same size is a copy.
//   - NEAREST picks source index trunc(p), p starting at step/2 and
//     accumulated by step = in/out per output sample.
//   - The other filters build, per axis, Pillow's coefficient table in
//     float64 (same operation order, every product that feeds an addition
//     rounded explicitly, so no FMA on any architecture), normalize each
//     output's weights by their sum and convert them to 22-bit fixed point
//     rounding half away from zero, without renormalizing.
//   - The horizontal pass runs first over the source rows the vertical pass
//     needs, into a rounded and clamped uint8 intermediate; then the vertical
//     pass. Each output sample is a signed 32-bit sum started at 1<<21,
//     shifted right arithmetically by 22 and clamped to 0..255.
//   - The tall-image rule of Pillow ≥ 12.2: when the source is more than 100
//     times taller than wide and its height shrinks, the result is that of
//     two calls, a vertical-only resize to src.Width × height (stored as
//     uint8) and then a horizontal-only one. Options.NoTallRule turns it off,
//     which gives the result of earlier Pillow releases.
//
// The tests check that section's vectors, a slow transcription of its
// steps, and sha256 digests of Pillow 9.4.0 output for several hundred cases
// (testdata/pillow_golden.json, from scripts/golden/resample_pillow.py).
//
// # Use
//
//	r, err := resample.New(resample.Options{})          // zero value: defaults
//	out, err := r.Resize(ctx, src, 1288, 812, resample.Bicubic)
//	err = r.ResizeInto(ctx, dst, src, resample.Bicubic) // dst gives the size
//
// Filter values are Pillow's integer codes (Bicubic = 3); ParseFilter takes
// a name or a code. Coefficients exposes a coefficient table.
//
// # Performance
//
// Coefficient tables are data, computed once per (in size, out size,
// filter) and kept in a bounded LRU cache (Options.CacheEntries; a table
// takes up to a few hundred KB for 2–3K-pixel axes). Output rows are split
// into contiguous bands, one goroutine each (Options.Workers, default
// GOMAXPROCS); a band keeps only a ring of the horizontally filtered rows
// its vertical taps need, so the intermediate image is never materialized
// and stays in cache. The result does not depend on the number of workers.
//
// On amd64 with AVX2 the inner loops are assembly: the vertical pass 32
// samples at a time; the horizontal pass 8 output pixels at a time where
// their source windows can be laid over 24 contiguous bytes (near scale 1,
// and near scale 2 over a copy of the row split into its even and odd
// pixels), else 2 pixels at a time, else 1 pixel at a time. All but the
// last multiply int16 pixel pairs by the weights split into int16 halves
// (VPMADDWD, two taps per multiply), which costs fewer and cheaper
// instructions than 32-bit multiplies. All use Pillow's 32-bit
// wrapping sums, so they are exact; the build tag purego (and every other
// architecture) selects the portable Go loops, and the tests check each
// kernel against them. A call allocates only its per-band row ring (a few
// output rows) and one split row.
//
// # Concurrency
//
// A Resizer is safe for concurrent use. A call reads src and writes dst
// only; dst must not overlap src. Cancelling the context stops a call
// between rows and returns the context's error (dst is then partly written).
//
// # Errors
//
// Errors wrap ErrInvalid (bad sizes or images), ErrUnsupported (unknown
// filter) or ErrTooLarge (a side above MaxSide).
package resample
