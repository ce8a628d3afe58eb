// Package llava is the LLaVA-1.5 model family (model_type llava,
// LlavaForConditionalGeneration) on the CLIP processor of package
// vision/clip.
//
// What is its own: the llava-hf chat template renders each image as
// <image>, which becomes 576 <image> (LlavaProcessor's count for the
// default feature strategy); the token is looked up in the tokenizer by
// the text the processor configuration names. Wire layout as vLLM's LLaVA:
// pixel_values batched, [1, 3, 336, 336] per image; no side tensors and no
// `mmgate preprocess` extras; no tool-call or reasoning tags.
//
// The family and its models are immutable and safe for concurrent use.
package llava

import (
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/clip"
)

// New returns the LLaVA-1.5 family.
func New() family.Family {
	return &family.Spec{FamilyName: "llava", Types: []string{clip.ModelType},
		Archs: []string{"LlavaForConditionalGeneration"}, LoadModel: load}
}

// model is one loaded LLaVA-1.5 model.
type model struct {
	family.ImageOnly
	cfg *clip.Config
}

func load(f family.Family, c *family.Config) (family.Model, error) {
	base, cfg, _, err := family.LoadImageOnly(f, c, family.Layout{Primary: "pixel_values"}, clip.LoadConfig, clip.New)
	if err != nil {
		return nil, err
	}
	return &model{ImageOnly: base, cfg: cfg}, nil
}

// ImageProcessor implements family.Model.
func (m *model) ImageProcessor(o vision.ProcessorOptions) (vision.Processor, error) {
	return clip.New(m.cfg, o)
}

// Specials implements family.Model: <image>, which is its own anchor.
func (m *model) Specials(tok prompt.Tokenizer) (*prompt.Specials, error) {
	return family.LookupSpecials(tok, family.SpecialTexts{Pad: map[vision.Modality]string{vision.Image: m.cfg.Prompt.ImageToken}})
}

// CheckReceived implements family.Model: pixels [1, 3, h, w] — the crop
// size when the processor center-crops — and LlavaProcessor's token count
// for an h×w view.
func (m *model) CheckReceived(r family.Received) (family.Summary, error) {
	h, w := m.cfg.Image.CropHeight, m.cfg.Image.CropWidth
	if sh := r.Primary.Shape; !m.cfg.Image.DoCenterCrop && len(sh) == 4 {
		h, w = sh[2], sh[3]
	}
	return family.CheckPlanes(r, []int{1, 3, h, w}, m.cfg.Prompt.ImageTokens(h, w))
}
