package imageprep

import (
	"context"
	"time"

	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// This file answers: when does an image skip the whole decoded image? When
// the decoder can stream the file's rows (RowDecoder) and the processor
// can take them (vision.RowProcessor), decoding, resizing and patchifying
// run interleaved, and only the tensor is ever large (with Request.Sink,
// not even the tensor: it leaves a block row at a time). The bytes are those
// of the whole-image path; a file that turns out corrupt is decoded again
// whole, so that its error is the one the whole-image path reports.

// Rows is an image whose RGB rows are read top to bottom.
type Rows struct {
	Reader        resample.RowReader
	Width, Height int
	Format        string
	Exact         bool
	Close         func() // releases the decoder; called exactly once
}

// RowDecoder is a Decoder that can also stream some files: DecodeRows
// returns nil (and no error) for a file it does not stream, which then
// goes through DecodeRGB.
type RowDecoder interface {
	Decoder
	DecodeRows(data []byte) (*Rows, error)
	// CanStream reports from the headers alone whether DecodeRows would
	// stream data, and the image's size.
	CanStream(data []byte) (width, height int, ok bool)
}

// Streams reports whether Image would stream data: the decoder streams it
// and the processor takes the planned resize. It reads headers only.
func (p *Preprocessor) Streams(data []byte, o vision.Overrides) bool {
	rd, rp, ok := p.rowPath()
	if !ok {
		return false
	}
	w, h, ok := rd.CanStream(data)
	if !ok {
		return false
	}
	plan, err := rp.PlanImage(w, h, o)
	return err == nil && rp.StreamsPlan(plan)
}

// rowPath returns the decoder and processor as their streaming
// interfaces, ok when both have them.
func (p *Preprocessor) rowPath() (RowDecoder, vision.RowProcessor, bool) {
	rd, ok := p.dec.(RowDecoder)
	rp, ok2 := p.proc.(vision.RowProcessor)
	return rd, rp, ok && ok2
}

// readErrRows remembers the error its reader returned.
type readErrRows struct {
	r   resample.RowReader
	err error
}

func (e *readErrRows) Read(dst []uint8, n int) error {
	err := e.r.Read(dst, n)
	if err != nil && e.err == nil {
		e.err = err
	}
	return err
}

// streamImage runs req through the streaming path when it applies;
// handled is false when the caller must run the whole-image path instead.
// It is called with a concurrency slot held.
func (p *Preprocessor) streamImage(ctx context.Context, req Request, dt tensor.DType, alloc Allocator) (res *Result, handled bool, err error) {
	rd, rp, ok := p.rowPath()
	if !ok {
		return nil, false, nil
	}
	t0 := time.Now()
	rows, err := rd.DecodeRows(req.Data)
	if rows == nil || err != nil {
		return nil, false, nil
	}
	defer rows.Close()
	opened := time.Since(t0)
	plan, err := rp.PlanImage(rows.Width, rows.Height, req.Overrides)
	if err != nil || !rp.StreamsPlan(plan) {
		// A refused plan goes the whole way too: a file that is also
		// corrupt reports its decode error first there.
		return nil, false, nil
	}
	res = &Result{Plan: plan, DType: dt, Format: rows.Format, Exact: rows.Exact}
	in := &readErrRows{r: rows.Reader}
	var tm vision.Timings
	if req.Sink != nil {
		w, serr := req.Sink(plan, dt)
		if serr != nil {
			return nil, true, stageErr(StageProcess, serr)
		}
		tm, err = rp.StreamRows(ctx, in, plan, dt, w)
	} else {
		if res.Data, err = allocate(alloc, plan.Bytes(dt)); err != nil {
			return nil, true, err
		}
		tm, err = rp.ProcessRows(ctx, in, plan, dt, res.Data)
	}
	if in.err != nil {
		return res, true, p.decodeError(ctx, req.Data, in.err)
	}
	if err != nil {
		return res, true, stageErr(StageProcess, err)
	}
	res.Timings = Timings{Decode: opened + tm.Read, Resize: tm.Resize, NormalizePatchify: tm.NormalizePatchify}
	return res, true, nil
}

// decodeError is the error of a file whose rows failed to decode: the
// whole-image decoder's, worded as the whole-image path reports it.
func (p *Preprocessor) decodeError(ctx context.Context, data []byte, readErr error) error {
	dec, err := p.dec.DecodeRGB(ctx, data)
	if err != nil {
		return stageErr(StageDecode, err)
	}
	if dec.Release != nil {
		dec.Release()
	}
	return stageErr(StageDecode, readErr)
}
