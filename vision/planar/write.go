package planar

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/norm"
)

// View is the W×H window of Src whose top-left corner is at (X, Y) in Src's
// coordinates. X and Y may be negative and the window may reach past Src:
// samples outside Src read as 0.
type View struct {
	Src  *imaging.RGB
	X, Y int
	W, H int
}

// Elements is the number of values the view writes: 3·W·H.
func (v View) Elements() int { return 3 * v.W * v.H }

// minParallelElements is the smallest output split across goroutines.
const minParallelElements = 1 << 16

// rowChunk is how many rows a goroutine writes between context checks.
const rowChunk = 32

// Write normalizes views with n and writes them one after another into
// dst, each as [3][H][W] elements of dtype dt (Float32, BFloat16 or
// Float16, little-endian). dst must be exactly the sum of the views'
// Elements times dt.Size() bytes. workers bounds the goroutines (0 means
// GOMAXPROCS); the result does not depend on it.
func Write(ctx context.Context, dst []byte, views []View, n *norm.Table, dt tensor.DType, workers int) error {
	if err := check(dst, views, n, dt); err != nil {
		return fmt.Errorf("planar: write: %w", err)
	}
	w := writer{views: views, table: n, dt: dt, size: dt.Size()}
	w.offsets = make([]int, len(views)+1)
	w.firstRow = make([]int, len(views)+1)
	elements := 0
	for i, v := range views {
		w.offsets[i+1] = w.offsets[i] + v.Elements()*w.size
		w.firstRow[i+1] = w.firstRow[i] + v.H
		w.maxW = max(w.maxW, v.W)
		elements += v.Elements()
	}
	w.dst = dst
	rows := w.firstRow[len(views)]
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if elements < minParallelElements {
		workers = 1
	}
	workers = min(workers, rows)
	if workers <= 1 {
		return w.band(ctx, 0, rows)
	}
	g, gctx := errgroup.WithContext(ctx)
	for k := range workers {
		r0, r1 := k*rows/workers, (k+1)*rows/workers
		g.Go(func() error { return w.band(gctx, r0, r1) })
	}
	return g.Wait()
}

func check(dst []byte, views []View, n *norm.Table, dt tensor.DType) error {
	if !dt.IsFloat() {
		return fmt.Errorf("dtype %v: %w", dt, vision.ErrUnsupported)
	}
	if n == nil {
		return fmt.Errorf("nil table: %w", vision.ErrBadInput)
	}
	want := 0
	for i, v := range views {
		if v.Src == nil {
			return fmt.Errorf("view %d: nil image: %w", i, vision.ErrBadInput)
		}
		if err := v.Src.Validate(); err != nil {
			return fmt.Errorf("view %d: %v: %w", i, err, vision.ErrBadInput)
		}
		if v.W <= 0 || v.H <= 0 {
			return fmt.Errorf("view %d: size %dx%d: %w", i, v.W, v.H, vision.ErrBadInput)
		}
		want += v.Elements() * dt.Size()
	}
	if len(dst) != want {
		return fmt.Errorf("dst is %d bytes, want %d: %w", len(dst), want, vision.ErrBadInput)
	}
	return nil
}

// writer holds one Write call's layout: view i occupies
// dst[offsets[i]:offsets[i+1]] and its rows are the global rows
// [firstRow[i], firstRow[i+1]).
type writer struct {
	views    []View
	table    *norm.Table
	dt       tensor.DType
	size     int
	dst      []byte
	offsets  []int
	firstRow []int
	maxW     int
}

// band writes the global rows [r0, r1), checking ctx every rowChunk rows.
func (w *writer) band(ctx context.Context, r0, r1 int) error {
	buf := make([]uint8, 3*w.maxW)
	vi := 0
	for r := r0; r < r1; r++ {
		if (r-r0)%rowChunk == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for r >= w.firstRow[vi+1] {
			vi++
		}
		w.row(vi, r-w.firstRow[vi], buf)
	}
	return nil
}

// row writes row y of view vi: the three channel rows are gathered as
// samples (0 outside the source) and then looked up in the dtype's table.
func (w *writer) row(vi, y int, buf []uint8) {
	v := w.views[vi]
	planes := [3][]uint8{buf[:v.W], buf[v.W : 2*v.W], buf[2*v.W : 3*v.W]}
	gather(planes, v, y)
	region := w.dst[w.offsets[vi]:w.offsets[vi+1]]
	rowBytes := v.W * w.size
	for c := range 3 {
		at := (c*v.H + y) * rowBytes
		out := region[at : at+rowBytes : at+rowBytes]
		if w.dt == tensor.Float32 {
			emit32(out, planes[c], &w.table.Bits32()[c])
		} else {
			emit16(out, planes[c], &w.table.Bits16(w.dt)[c])
		}
	}
}

// span returns the part [a, b) of [0, n) whose positions o+i fall inside
// [0, size).
func span(o, n, size int) (a, b int) {
	a = min(max(-o, 0), n)
	b = max(min(size-o, n), a)
	return a, b
}

// gather fills planes with the samples of row y of v, channel by channel.
func gather(planes [3][]uint8, v View, y int) {
	sy := v.Y + y
	a, b := 0, 0
	if sy >= 0 && sy < v.Src.Height {
		a, b = span(v.X, v.W, v.Src.Width)
	}
	for c := range 3 {
		clear(planes[c][:a])
		clear(planes[c][b:])
	}
	if a == b {
		return
	}
	s := v.Src.Row(sy)[(v.X+a)*3 : (v.X+b)*3]
	r, g, bl := planes[0][a:b], planes[1][a:b], planes[2][a:b]
	for i := range r {
		r[i], g[i], bl[i] = s[3*i], s[3*i+1], s[3*i+2]
	}
}

func emit32(out []byte, p []uint8, lut *[256]uint32) {
	for i, x := range p {
		binary.LittleEndian.PutUint32(out[4*i:4*i+4], lut[x])
	}
}

func emit16(out []byte, p []uint8, lut *[256]uint16) {
	for i, x := range p {
		binary.LittleEndian.PutUint16(out[2*i:2*i+2], lut[x])
	}
}
