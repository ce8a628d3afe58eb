package imageprep

import (
	"fmt"

	"github.com/mmgate/mmgate/vision"
)

// Prober is implemented by decoders that can read an image's size, after
// EXIF orientation, from its headers without decoding pixels.
type Prober interface {
	ProbeSize(data []byte) (width, height int, err error)
}

// Coster is implemented by decoders that can estimate a file's decoding
// cost from its headers (media.Decoder.DecodeCost).
type Coster interface {
	DecodeCost(head []byte) int64
}

// Cost estimates the CPU time Image takes for a file from its first bytes,
// in units of one baseline JPEG pixel: the decoder's estimate (the source
// pixels when it has none) plus the planned output pixels. 0 when the
// headers cannot be read. It orders work; it bounds nothing.
func (p *Preprocessor) Cost(head []byte, o vision.Overrides) int64 {
	pr, ok := p.dec.(Prober)
	if !ok {
		return 0
	}
	w, h, err := pr.ProbeSize(head)
	if err != nil {
		return 0
	}
	cost := int64(w) * int64(h)
	if c, ok := p.dec.(Coster); ok {
		cost = c.DecodeCost(head)
	}
	if plan, err := p.proc.PlanImage(w, h, o); err == nil {
		cost += int64(plan.Width) * int64(plan.Height)
	}
	return cost
}

// Plan returns the plan (resized size, grid, tokens, tensor shape) of an
// encoded image from its headers alone, as Image would make it after
// decoding. It needs a Decoder that implements Prober; otherwise it returns
// an error wrapping ErrOptions. Errors name the stage (decode for unreadable
// headers, plan for sizes the processor refuses).
func (p *Preprocessor) Plan(data []byte, o vision.Overrides) (vision.Plan, error) {
	pr, ok := p.dec.(Prober)
	if !ok {
		return vision.Plan{}, fmt.Errorf("imageprep: plan: the decoder cannot read headers: %w", ErrOptions)
	}
	w, h, err := pr.ProbeSize(data)
	if err != nil {
		return vision.Plan{}, stageErr(StageDecode, err)
	}
	plan, err := p.proc.PlanImage(w, h, o)
	if err != nil {
		return vision.Plan{}, stageErr(StagePlan, err)
	}
	return plan, nil
}
