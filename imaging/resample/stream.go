package resample

import (
	"context"
	"fmt"

	"github.com/mmgate/mmgate/imaging"
)

// This file answers: how is an image resized while its rows still arrive?
// A decoder that streams rows (media.Rows) and a consumer that takes the
// output a band of rows at a time (a patchify) then never hold a whole
// image, only the rows in flight — less memory to fault in and rows that
// stay in cache. The arithmetic is the whole-image pass's (passes.go):
// the same tables, kernels and order, so the bytes are the same.

// RowReader yields an image's rows top to bottom: Read fills dst with the
// next n rows of Width·3 bytes.
type RowReader interface {
	Read(dst []uint8, n int) error
}

// sourceBatch is how many source rows are read at a time.
const sourceBatch = 16

// Streams reports whether ResizeRows takes this resize: a convolution
// filter, and not the tall-image order, which reads a window of source
// rows per output row before filtering across.
func (r *Resizer) Streams(srcW, srcH, dstW, dstH int, f Filter) bool {
	if !f.valid() || f == Nearest || sizeKind(srcW, srcH, dstW, dstH) != nil {
		return false
	}
	return !(r.tall && srcH > 100*srcW && dstH < srcH && dstW != srcW)
}

// ResizeRows resizes an srcW×srcH image read from src to band.Width×dstH,
// handing the output to emit a band at a time: emit(y0, n) is called once
// band.Pix holds output rows [y0, y0+n) in its first n rows, n =
// band.Height except for the last band. Every source row is read, the
// ones no output row needs included, so that a decoder meets an error
// anywhere in the file as the whole-image decode would. The result equals
// ResizeInto's. The resize must be one Streams accepts.
func (r *Resizer) ResizeRows(ctx context.Context, src RowReader, srcW, srcH int, band *imaging.RGB, dstH int, f Filter, emit func(y0, n int) error) error {
	if band == nil || band.Validate() != nil || band.Height <= 0 || !r.Streams(srcW, srcH, band.Width, dstH, f) {
		return fmt.Errorf("resample: stream %dx%d to %dx%d with %v: %w", srcW, srcH, bandWidth(band), dstH, f, ErrInvalid)
	}
	s := &stream{src: src, w: srcW, h: srcH, band: band, dstH: dstH, emit: emit}
	if srcW == band.Width && srcH == dstH {
		return s.copyRows(ctx)
	}
	k, _ := kernelOf(f)
	if band.Width != srcW {
		s.ht = r.cache.get(tableKey{srcW, band.Width, f}, k)
	}
	if dstH != srcH {
		s.vt = r.cache.get(tableKey{srcH, dstH, f}, k)
	}
	return s.resize(ctx)
}

func bandWidth(b *imaging.RGB) int {
	if b == nil {
		return 0
	}
	return b.Width
}

// stream is one ResizeRows call.
type stream struct {
	src    RowReader
	w, h   int
	band   *imaging.RGB
	dstH   int
	emit   func(y0, n int) error
	vt, ht *table // nil when that axis keeps its size

	batch          []uint8 // source rows [batch0, batch0+batchN)
	batch0, batchN int
	read           int // source rows read so far
}

// row returns source row y, reading ahead in batches; y never decreases
// from one call to the next.
func (s *stream) row(y int) ([]uint8, error) {
	stride := s.w * 3
	for y >= s.batch0+s.batchN {
		if s.batch == nil {
			s.batch = make([]uint8, sourceBatch*stride)
		}
		n := min(sourceBatch, s.h-s.read)
		if err := s.src.Read(s.batch, n); err != nil {
			return nil, err
		}
		s.batch0, s.batchN = s.read, n
		s.read += n
	}
	i := y - s.batch0
	return s.batch[i*stride : (i+1)*stride : (i+1)*stride], nil
}

// drain reads the source rows no output row needed.
func (s *stream) drain() error {
	if s.read < s.h {
		_, err := s.row(s.h - 1)
		return err
	}
	return nil
}

// flush hands out the band when output row y was its last.
func (s *stream) flush(y int) error {
	bh := s.band.Height
	if (y+1)%bh != 0 && y+1 != s.dstH {
		return nil
	}
	y0 := y / bh * bh
	return s.emit(y0, y+1-y0)
}

// copyRows is the resize to the same size: the rows themselves.
func (s *stream) copyRows(ctx context.Context) error {
	bh, stride := s.band.Height, s.band.Stride()
	for y0 := 0; y0 < s.h; y0 += bh {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(bh, s.h-y0)
		if err := s.src.Read(s.band.Pix[:n*stride], n); err != nil {
			return err
		}
		if err := s.emit(y0, n); err != nil {
			return err
		}
	}
	return nil
}

// resize is passes.go's horizontal-first order over streamed rows; a
// vertical-only resize copies each source row into the ring instead of
// filtering it, and a horizontal-only one filters each row straight into
// the band.
func (s *stream) resize(ctx context.Context) error {
	stride := s.band.Stride()
	var ring []uint8
	var rows [][]uint8
	var acc []int32
	ringN := 1
	if s.vt != nil {
		ringN = s.vt.maxCnt
		ring = make([]uint8, ringN*stride)
		rows = make([][]uint8, ringN)
		acc = accScratch(s.vt, stride)
	}
	scratch := make([]uint8, s.ht.scratchLen())
	next := 0 // first source row not yet in the ring
	for y := range s.dstH {
		if y%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		out := s.band.Row(y % s.band.Height)
		if s.vt == nil {
			in, err := s.row(y)
			if err != nil {
				return err
			}
			hpass(out, in, s.ht, scratch)
		} else {
			lo, n, w := s.vt.at(y)
			next = max(next, lo)
			for ; next < lo+n; next++ {
				in, err := s.row(next)
				if err != nil {
					return err
				}
				slot := ring[(next%ringN)*stride:][:stride:stride]
				if s.ht != nil {
					hpass(slot, in, s.ht, scratch)
				} else {
					copy(slot, in)
				}
			}
			for j := range n {
				rows[j] = ring[((lo+j)%ringN)*stride:][:stride:stride]
			}
			vrow(out, rows[:n], w, acc)
		}
		if err := s.flush(y); err != nil {
			return err
		}
	}
	return s.drain()
}
