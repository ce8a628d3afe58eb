package vision

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
)

// Modality is a kind of media a model can take.
type Modality uint8

// The modalities. The zero value is invalid.
const (
	Image Modality = iota + 1
	Video
	Audio
)

var modalityNames = [...]string{Image: "image", Video: "video", Audio: "audio"}

// String returns "image", "video" or "audio".
func (m Modality) String() string {
	if m < Image || m > Audio {
		return fmt.Sprintf("modality(%d)", uint8(m))
	}
	return modalityNames[m]
}

// ParseModality maps "image", "video" or "audio" to its Modality.
func ParseModality(s string) (Modality, error) {
	for m := Image; m <= Audio; m++ {
		if modalityNames[m] == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("vision: modality %q: %w", s, ErrUnsupported)
}

// Overrides are per-request processor settings. A zero field means the
// model's default.
type Overrides struct {
	MinPixels int // lower bound on the resized pixel count (HF min_pixels / size.shortest_edge)
	MaxPixels int // upper bound on the resized pixel count (HF max_pixels / size.longest_edge)
}

// Validate rejects negative values.
func (o Overrides) Validate() error {
	if o.MinPixels < 0 || o.MaxPixels < 0 {
		return fmt.Errorf("vision: min_pixels %d, max_pixels %d: %w", o.MinPixels, o.MaxPixels, ErrBadOptions)
	}
	return nil
}

// Plan describes the tensors one image (or video) becomes. It depends only on
// the source size, the model and the overrides.
//
// Patch-grid families (Qwen-VL, GLM-4V) fill the grid and Rows×Cols; families
// whose pixel_values keep image planes (Gemma 3, LLaVA, InternVL) fill
// NDims and Dims with the shape the Hugging Face processor returns for a
// batch of one item, and Views with the number of image planes in it
// (crops, tiles, thumbnail).
type Plan struct {
	SourceWidth, SourceHeight int          // post-EXIF decoded size the plan was made for
	Width, Height             int          // size after resizing
	GridT, GridH, GridW       int          // grid_thw: temporal groups, patch rows, patch columns
	Tokens                    int          // placeholder tokens: GridT·GridH·GridW / merge²
	Rows, Cols                int          // pixel_values shape of patch-grid families (Rows = GridT·GridH·GridW)
	NDims                     int          // when not 0, pixel_values has the shape Dims[:NDims] instead of [Rows, Cols]
	Dims                      [MaxDims]int // see NDims
	Views                     int          // image planes in Dims (0 for patch-grid families)
}

// MaxDims is the most dimensions a pixel_values tensor of one item has
// (LLaVA-NeXT: [1, views, 3, 336, 336]). Plans keep their shape in an array
// so that they stay comparable values.
const MaxDims = 5

// Elements is the product of Shape.
func (p Plan) Elements() int {
	if p.NDims == 0 {
		return p.Rows * p.Cols
	}
	n := 1
	for _, d := range p.Dims[:p.NDims] {
		n *= d
	}
	return n
}

// Bytes is the size of pixel_values encoded as dt (0 for an invalid dtype).
func (p Plan) Bytes(dt tensor.DType) int { return p.Elements() * dt.Size() }

// Shape is the pixel_values shape: Dims[:NDims] when NDims is set, else
// [Rows, Cols].
func (p Plan) Shape() []int {
	if p.NDims != 0 {
		return append([]int(nil), p.Dims[:p.NDims]...)
	}
	return []int{p.Rows, p.Cols}
}

// GridTHW is the grid as the int64 triple the model's *_grid_thw tensor holds.
func (p Plan) GridTHW() [3]int64 { return [3]int64{int64(p.GridT), int64(p.GridH), int64(p.GridW)} }

// Timings are the wall times of one ProcessImage or ProcessRows call's
// stages.
type Timings struct {
	Read              time.Duration // ProcessRows: waiting for the source's rows
	Resize            time.Duration // zero when the planned size equals the source size
	NormalizePatchify time.Duration // normalize + patchify + encode into dst
}

// Processor is one model family's media preprocessor.
type Processor interface {
	// ModelType is the config.json model_type this processor serves
	// (for example "qwen2_5_vl").
	ModelType() string

	// PlanImage plans a width×height (post-EXIF) image. It returns an error
	// wrapping ErrAspectRatio, ErrTooSmall or ErrBadOptions for inputs the
	// reference processor refuses, and ErrTooLarge for a resized size over
	// the processor's limit.
	PlanImage(width, height int, o Overrides) (Plan, error)

	// ProcessImage resizes img to the planned size and writes pixel_values
	// into dst, which must be exactly plan.Bytes(dt) long, encoded as dt
	// (little-endian). img must have the plan's source size. img is not
	// modified.
	ProcessImage(ctx context.Context, img *imaging.RGB, plan Plan, dt tensor.DType, dst []byte) (Timings, error)
}

// RowProcessor is a Processor that can also take an image's rows as they
// are decoded, so that the whole image is never held: only the rows the
// resize and the patchify have in flight.
type RowProcessor interface {
	Processor
	// StreamsPlan reports whether ProcessRows takes plan.
	StreamsPlan(plan Plan) bool
	// ProcessRows is ProcessImage for an image of the plan's source size
	// whose rows src yields top to bottom; dst gets the same bytes. Every
	// row of src is read.
	ProcessRows(ctx context.Context, src resample.RowReader, plan Plan, dt tensor.DType, dst []byte) (Timings, error)
	// StreamRows is ProcessRows with the bytes written to w in order, a
	// part at a time, instead of into a tensor: the tensor is never held
	// whole. An error from w ends the call and is returned wrapped.
	StreamRows(ctx context.Context, src resample.RowReader, plan Plan, dt tensor.DType, w io.Writer) (Timings, error)
}
