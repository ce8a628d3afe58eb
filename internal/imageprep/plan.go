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
