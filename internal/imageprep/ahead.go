package imageprep

import (
	"errors"
	"time"

	"github.com/mmgate/mmgate/imaging/resample"
)

// This file answers: how do decoding and resizing one image overlap? A
// goroutine of its own decodes the rows a few batches ahead of the resize
// and patchify, so that one image keeps two cores busy — the last image of
// a run no longer ends on one core while the other idles — and a
// progressive JPEG's long decode overlaps with the work on its rows.

const (
	aheadBatch   = 16 // rows decoded at a time
	aheadBatches = 4  // batches in flight
)

// errReadPastEnd: the consumer asked for more rows than the image has.
var errReadPastEnd = errors.New("imageprep: read past the last row")

// aheadBatchOf is one decoded batch.
type aheadBatchOf struct {
	pix  []uint8
	rows int
	err  error
}

// aheadRows reads src's rows (height rows of width·3 bytes) in a goroutine
// of its own. Read must be called from one goroutine; Close must be called,
// and stops the reader before the source may be released.
type aheadRows struct {
	stride int
	full   chan aheadBatchOf
	free   chan []uint8
	stop   chan struct{}
	done   chan struct{}
	busy   time.Duration // the reader's time in src.Read; read after Close

	cur    aheadBatchOf
	offset int // rows of cur already handed out
}

func readAhead(src resample.RowReader, width, height int) *aheadRows {
	a := &aheadRows{
		stride: width * 3,
		full:   make(chan aheadBatchOf, aheadBatches),
		free:   make(chan []uint8, aheadBatches),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	for range aheadBatches {
		a.free <- make([]uint8, aheadBatch*a.stride)
	}
	go a.run(src, height)
	return a
}

func (a *aheadRows) run(src resample.RowReader, height int) {
	defer close(a.done)
	defer close(a.full)
	for y := 0; y < height; {
		var buf []uint8
		select {
		case buf = <-a.free:
		case <-a.stop:
			return
		}
		n := min(aheadBatch, height-y)
		t0 := time.Now()
		err := src.Read(buf, n)
		a.busy += time.Since(t0)
		a.full <- aheadBatchOf{pix: buf, rows: n, err: err}
		if err != nil {
			return
		}
		y += n
	}
}

// Read implements resample.RowReader.
func (a *aheadRows) Read(dst []uint8, n int) error {
	for n > 0 {
		if a.offset == a.cur.rows {
			if a.cur.pix != nil {
				a.free <- a.cur.pix
			}
			b, ok := <-a.full
			if !ok || b.err != nil {
				a.cur = aheadBatchOf{}
				if b.err != nil {
					return b.err
				}
				return errReadPastEnd
			}
			a.cur, a.offset = b, 0
		}
		k := min(n, a.cur.rows-a.offset)
		copy(dst[:k*a.stride], a.cur.pix[a.offset*a.stride:(a.offset+k)*a.stride])
		dst = dst[k*a.stride:]
		a.offset += k
		n -= k
	}
	return nil
}

// Close stops the reader and waits for it.
func (a *aheadRows) Close() {
	close(a.stop)
	<-a.done
}
