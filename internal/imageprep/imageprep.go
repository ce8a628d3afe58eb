package imageprep

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// Decoded is a decoded image after EXIF orientation and RGB conversion.
type Decoded struct {
	RGB    *imaging.RGB
	Format string // "jpeg", "png", "webp", …
	Exact  bool   // the pixels are Pillow-exact (false with the pure-Go fallbacks)
	// Release, when set, gives RGB's memory back to the decoder once the
	// image is processed; RGB is not used after it.
	Release func()
}

// Decoder turns encoded bytes into Pillow-equivalent RGB pixels. It must be
// safe for concurrent use. MediaDecoder adapts a *media.Decoder.
type Decoder interface {
	DecodeRGB(ctx context.Context, data []byte) (Decoded, error)
}

// DecoderFunc adapts a function to Decoder.
type DecoderFunc func(ctx context.Context, data []byte) (Decoded, error)

// DecodeRGB calls f.
func (f DecoderFunc) DecodeRGB(ctx context.Context, data []byte) (Decoded, error) {
	return f(ctx, data)
}

// Allocator returns a destination of exactly nbytes bytes for pixel_values.
// The caller owns it: a Go slice, or a mapped shared-memory segment. It may
// be called concurrently from several preprocessing calls.
type Allocator func(nbytes int) ([]byte, error)

// HeapAllocator allocates on the Go heap.
func HeapAllocator(nbytes int) ([]byte, error) { return make([]byte, nbytes), nil }

// Options configure a Preprocessor. The zero value of each field but the
// two interfaces means its default.
type Options struct {
	Decoder   Decoder          // required
	Processor vision.Processor // required

	// Concurrency bounds how many images are decoded and processed at the
	// same time across all callers. 0 means GOMAXPROCS.
	Concurrency int
}

// Preprocessor runs the image pipeline. It is safe for concurrent use.
type Preprocessor struct {
	dec  Decoder
	proc vision.Processor
	sem  chan struct{}
}

// New checks o and builds a Preprocessor.
func New(o Options) (*Preprocessor, error) {
	if o.Decoder == nil || o.Processor == nil {
		return nil, fmt.Errorf("imageprep: a Decoder and a Processor are required: %w", ErrOptions)
	}
	if o.Concurrency < 0 {
		return nil, fmt.Errorf("imageprep: concurrency %d: %w", o.Concurrency, ErrOptions)
	}
	n := o.Concurrency
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return &Preprocessor{dec: o.Decoder, proc: o.Processor, sem: make(chan struct{}, n)}, nil
}

// Processor returns the model processor the Preprocessor uses.
func (p *Preprocessor) Processor() vision.Processor { return p.proc }

// Request is one image to preprocess.
type Request struct {
	Data      []byte           // the encoded file
	Overrides vision.Overrides // per-request min/max pixels (zero: model defaults)
	DType     tensor.DType     // output dtype; zero means Float32
	Alloc     Allocator        // nil means HeapAllocator

	// Sink, when not nil, takes the tensor of an image that streams:
	// once the image is planned, Image writes its pixel_values, in order,
	// to the writer Sink returns, without ever holding them whole, and the
	// Result's Data is nil. An image that does not stream is allocated
	// with Alloc and returned in Data as without Sink. An error from Sink
	// or its writer fails the call at StageProcess.
	Sink func(plan vision.Plan, dt tensor.DType) (io.Writer, error)
}

// Timings are the wall times of one call's stages. Waiting for a
// concurrency slot and allocating are not included.
type Timings struct {
	Decode            time.Duration
	Resize            time.Duration // zero when the image needed no resize
	NormalizePatchify time.Duration
}

// Result describes the pixel_values written into Data.
type Result struct {
	Plan    vision.Plan  // grid, tokens, shape, resized size
	DType   tensor.DType // element type of Data
	Data    []byte       // Plan.Bytes(DType) bytes from the Allocator, little-endian, row-major; nil when they went to Request.Sink
	Format  string       // decoded container format
	Exact   bool         // the decoder is Pillow-exact
	Timings Timings
}

// GridTHW is the image_grid_thw row.
func (r *Result) GridTHW() [3]int64 { return r.Plan.GridTHW() }

// Tokens is the number of placeholder tokens the image expands to.
func (r *Result) Tokens() int { return r.Plan.Tokens }

// Shape is the pixel_values shape (Plan.Shape).
func (r *Result) Shape() []int { return r.Plan.Shape() }

// Destination applies the defaults of a request's output: dtype Float32
// and HeapAllocator; a dtype that is not a float type is refused.
func Destination(dt tensor.DType, alloc Allocator) (tensor.DType, Allocator, error) {
	if dt == 0 {
		dt = tensor.Float32
	}
	if !dt.IsFloat() {
		return 0, nil, fmt.Errorf("dtype %s: %w", dt, vision.ErrUnsupported)
	}
	if alloc == nil {
		alloc = HeapAllocator
	}
	return dt, alloc, nil
}

// Image decodes req.Data, plans it, allocates the destination and fills it.
// On error the returned error is an *Error naming the stage (or the context's
// error when ctx ended while waiting for a slot). When the failure comes
// after allocation (StageProcess, or StageDecode of a streamed file whose
// rows failed to decode), the returned Result is not nil and its Data is
// the allocated buffer (nil when the tensor went to Request.Sink), so that
// the caller can release it; in every other case the Result is nil.
func (p *Preprocessor) Image(ctx context.Context, req Request) (*Result, error) {
	dt, alloc, err := Destination(req.DType, req.Alloc)
	if err != nil {
		return nil, stageErr(StageProcess, err)
	}
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.sem }()
	if res, ok, err := p.streamImage(ctx, req, dt, alloc); ok {
		return res, err
	}

	t0 := time.Now()
	dec, err := p.dec.DecodeRGB(ctx, req.Data)
	if err != nil {
		return nil, stageErr(StageDecode, err)
	}
	if dec.Release != nil {
		defer dec.Release()
	}
	if dec.RGB == nil {
		return nil, stageErr(StageDecode, fmt.Errorf("decoder returned no image: %w", vision.ErrBadInput))
	}
	res := &Result{DType: dt, Format: dec.Format, Exact: dec.Exact}
	res.Timings.Decode = time.Since(t0)

	plan, err := p.proc.PlanImage(dec.RGB.Width, dec.RGB.Height, req.Overrides)
	if err != nil {
		return nil, stageErr(StagePlan, err)
	}
	res.Plan = plan
	buf, err := allocate(alloc, plan.Bytes(dt))
	if err != nil {
		return nil, err
	}
	res.Data = buf
	tm, err := p.proc.ProcessImage(ctx, dec.RGB, plan, dt, buf)
	if err != nil {
		return res, stageErr(StageProcess, err)
	}
	res.Timings.Resize = tm.Resize
	res.Timings.NormalizePatchify = tm.NormalizePatchify
	return res, nil
}

// allocate gets the n-byte destination from alloc.
func allocate(alloc Allocator, n int) ([]byte, error) {
	buf, err := alloc(n)
	if err != nil {
		return nil, stageErr(StageAllocate, err)
	}
	if len(buf) != n {
		return nil, stageErr(StageAllocate, fmt.Errorf("%w: got %d bytes, want %d", ErrAllocation, len(buf), n))
	}
	return buf, nil
}
