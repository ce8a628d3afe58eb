package qwenvl

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// This file answers: how does an image go from decoder to pixel_values
// without being held whole? The resize streams (resample.ResizeRows) into
// a band of one merged block row — merge·patch rows — and each full band
// is normalized and patchified into its own contiguous part of dst (or,
// with StreamRows, into one reused buffer that goes to a writer) while the
// next rows are decoded. The kernels are ProcessImage's, run on a
// layout of one block row, so the bytes are the same.

var _ vision.RowProcessor = (*Processor)(nil)

// StreamsPlan implements vision.RowProcessor: the resizer streams and the
// plan's resize is one it takes.
func (p *Processor) StreamsPlan(plan vision.Plan) bool {
	rr, ok := p.resizer.(vision.RowResizer)
	return ok && rr.Streams(plan.SourceWidth, plan.SourceHeight, plan.Width, plan.Height, p.filter)
}

// ProcessRows implements vision.RowProcessor.
func (p *Processor) ProcessRows(ctx context.Context, src resample.RowReader, plan vision.Plan, dt tensor.DType, dst []byte) (vision.Timings, error) {
	if err := p.checkRowsPlan(plan, dt); err != nil {
		return vision.Timings{}, fmt.Errorf("qwenvl: process rows: %w", err)
	}
	if n := plan.Bytes(dt); len(dst) != n {
		return vision.Timings{}, fmt.Errorf("qwenvl: process rows: dst is %d bytes, want %d: %w", len(dst), n, vision.ErrBadInput)
	}
	part := func(bh, n int) []byte { return dst[bh*n : (bh+1)*n] }
	return p.rows(ctx, src, plan, dt, part, nil)
}

// StreamRows implements vision.RowProcessor: each band's block row is
// written into one reused buffer and then to w, so that the tensor is
// never held whole. The buffer takes ordinary stores: it stays in cache
// from one band to the next.
func (p *Processor) StreamRows(ctx context.Context, src resample.RowReader, plan vision.Plan, dt tensor.DType, w io.Writer) (vision.Timings, error) {
	if err := p.checkRowsPlan(plan, dt); err != nil {
		return vision.Timings{}, fmt.Errorf("qwenvl: stream rows: %w", err)
	}
	var buf []byte
	part := func(_, n int) []byte {
		if buf == nil {
			buf = make([]byte, n)
		}
		return buf
	}
	write := func(b []byte) error {
		_, err := w.Write(b)
		return err
	}
	return p.rows(ctx, src, plan, dt, part, write)
}

// rows resizes src's rows into bands of one merged block row and writes
// each band's normalized patches into part(bh, n), the n bytes of block
// row bh; written, when not nil, takes them before the next band. Its
// time is not the kernels'.
func (p *Processor) rows(ctx context.Context, src resample.RowReader, plan vision.Plan, dt tensor.DType,
	part func(bh, n int) []byte, written func([]byte) error) (vision.Timings, error) {
	var tm vision.Timings
	rr := p.resizer.(vision.RowResizer)
	bandH := p.cfg.MergeSize * p.cfg.PatchSize
	band := imaging.NewRGB(plan.Width, bandH)
	l := layout{p: p.cfg.PatchSize, m: p.cfg.MergeSize, tau: p.cfg.TemporalPatchSize, gh: p.cfg.MergeSize, gw: plan.GridW}
	blockBytes := l.blockRows() * l.cols() * dt.Size()
	kernel := p.bandKernel(dt, l, written == nil)
	var out time.Duration
	emit := func(y0, n int) error {
		if n != bandH {
			return fmt.Errorf("qwenvl: band of %d rows at row %d: %w", n, y0, vision.ErrBadInput)
		}
		t0 := time.Now()
		dst := part(y0/bandH, blockBytes)
		kernel(dst, band.Pix, band.Stride())
		t1 := time.Now()
		tm.NormalizePatchify += t1.Sub(t0)
		if written == nil {
			return nil
		}
		err := written(dst)
		out += time.Since(t1)
		return err
	}
	in := &timedRows{src: src}
	t0 := time.Now()
	if err := rr.ResizeRows(ctx, in, plan.SourceWidth, plan.SourceHeight, band, plan.Height, p.filter, emit); err != nil {
		return tm, fmt.Errorf("qwenvl: resize rows: %w", err)
	}
	tm.Read = in.took
	if plan.Width != plan.SourceWidth || plan.Height != plan.SourceHeight {
		tm.Resize = time.Since(t0) - in.took - tm.NormalizePatchify - out
	}
	return tm, nil
}

// bandKernel returns the normalize+patchify kernel of dtype dt
// for one band of layout l (one merged block row); whole says the band
// is part of a whole tensor in memory, which may take streaming stores.
func (p *Processor) bandKernel(dt tensor.DType, l layout, whole bool) func(dst []byte, pix []uint8, stride int) {
	stream := whole && streams(l.gh*l.gw*l.cols()*dt.Size())
	if dt == tensor.Float32 {
		lut, aff := p.table.Bits32(), affineOf(p.table)
		return func(dst []byte, pix []uint8, stride int) { patchify32Auto(dst, pix, stride, l, lut, aff, stream, 0, 1) }
	}
	k := kernel16For(p.table.Bits16(dt), l)
	return func(dst []byte, pix []uint8, stride int) { patchify16Auto(dst, pix, stride, l, k, stream, 0, 1) }
}

// checkRowsPlan is checkPlan without an image: a float dtype, a plan this
// processor makes and one it streams.
func (p *Processor) checkRowsPlan(plan vision.Plan, dt tensor.DType) error {
	if !dt.IsFloat() {
		return fmt.Errorf("dtype %v: %w", dt, vision.ErrUnsupported)
	}
	if err := p.checkPlanShape(plan); err != nil {
		return err
	}
	if !p.StreamsPlan(plan) {
		return fmt.Errorf("plan %dx%d to %dx%d does not stream: %w", plan.SourceWidth, plan.SourceHeight, plan.Width, plan.Height, vision.ErrUnsupported)
	}
	return nil
}

// timedRows adds up the time spent waiting for a source's rows.
type timedRows struct {
	src  resample.RowReader
	took time.Duration
}

func (t *timedRows) Read(dst []uint8, n int) error {
	t0 := time.Now()
	err := t.src.Read(dst, n)
	t.took += time.Since(t0)
	return err
}
