// Package gemma3 is the Gemma 3 model family (model_type gemma3,
// Gemma3ForConditionalGeneration) on the processor of package
// vision/gemma3.
//
// What is its own: the chat template renders each image as
// <start_of_image>, which becomes "\n\n<start_of_image>" + 256
// <image_soft_token> + "<end_of_image>\n\n" per view (pan-and-scan adds its
// crops and text, vision/gemma3); the item's structural range is that whole
// replacement, as vLLM places it. The special tokens are looked up in the
// tokenizer by the texts tokenizer_config.json names. Wire layout as vLLM's
// Gemma 3: pixel_values [views, 3, 896, 896] concatenated along dim 0 with
// num_patches (views) per image; no side tensors but num_patches, which a
// protocol that joins items gives each one. `mmgate preprocess` adds
// num_crops. Gemma 3 has no tool-call or reasoning tags.
//
// The family and its models are immutable and safe for concurrent use.
package gemma3

import (
	"fmt"
	"strings"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/vision"
	vgemma "github.com/mmgate/mmgate/vision/gemma3"
)

// New returns the Gemma 3 family.
func New() family.Family {
	return &family.Spec{FamilyName: "gemma3", Types: []string{vgemma.ModelType},
		Archs: []string{"Gemma3ForConditionalGeneration"}, LoadModel: load}
}

// wire is vLLM's field layout: pixel_values flat by num_patches.
func wire() family.Layout {
	return family.Layout{Primary: "pixel_values", Sizes: "num_patches", Batched: []string{"num_patches"}}
}

// model is one loaded Gemma 3 model.
type model struct {
	family.ImageOnly
	cfg  *vgemma.Config
	plan *vgemma.Processor // plans and lays out prompts (no pixels)
}

func load(f family.Family, c *family.Config) (family.Model, error) {
	base, cfg, p, err := family.LoadImageOnly(f, c, wire(), vgemma.LoadConfig, vgemma.New)
	if err != nil {
		return nil, err
	}
	return &model{ImageOnly: base, cfg: cfg, plan: p}, nil
}

// ImageProcessor implements family.Model.
func (m *model) ImageProcessor(o vision.ProcessorOptions) (vision.Processor, error) {
	return vgemma.New(m.cfg, o)
}

// Extras implements family.Model: num_crops.
func (m *model) Extras(it family.Item) []family.Field {
	return []family.Field{{Key: "num_crops", Value: vgemma.NumCrops(it.Plan)}}
}

// Specials implements family.Model: <image_soft_token> as the pad, one
// <start_of_image> … <end_of_image> pair per view, <start_of_image> as the
// anchor the template renders, and the newline runs vLLM's Gemma 3
// processor splits when it finds a replacement ("\n\n\n" as "\n" +
// "\n\n", "\n\n\n\n" as "\n\n" + "\n\n"), since a replacement's leading
// "\n\n" merges with the newline the template puts before it.
func (m *model) Specials(tok prompt.Tokenizer) (*prompt.Specials, error) {
	t := m.cfg.Tokens
	sp, err := family.LookupSpecials(tok, family.SpecialTexts{
		Pad: map[vision.Modality]string{vision.Image: t.Image}, Start: t.BOI, End: t.EOI,
		Anchor: map[vision.Modality]string{vision.Image: t.BOI},
	})
	if err != nil {
		return nil, err
	}
	sp.Splits = newlineSplits(tok)
	return sp, nil
}

// newlineSplits are the splits of the newline tokens the tokenizer has; a
// tokenizer without all four has none.
func newlineSplits(tok prompt.Tokenizer) map[uint32][]uint32 {
	var nl [5]uint32
	for n := 1; n <= 4; n++ {
		id, ok := tok.TokenID(strings.Repeat("\n", n))
		if !ok {
			return nil
		}
		nl[n] = id
	}
	return map[uint32][]uint32{nl[3]: {nl[1], nl[2]}, nl[4]: {nl[2], nl[2]}}
}

// Expansion implements family.Model: the boi token's replacement, one run
// per view, framed as one structural range.
func (m *model) Expansion(it family.Item) prompt.Expansion {
	text, runs := m.plan.Expansion(it.Plan)
	return prompt.Expansion{Tokens: it.Plan.Tokens, Text: text, Runs: runs, Frame: true}
}

// CheckReceived implements family.Model: pixels [views, 3, height, width]
// with 1 + at most max_num_crops views, image_seq_length tokens per view,
// and num_patches, when sent, equal to views.
func (m *model) CheckReceived(r family.Received) (family.Summary, error) {
	views := family.Views(r.Primary)
	if views < 1 || views > 1+m.cfg.PanAndScan.MaxNumCrops {
		return family.Summary{}, fmt.Errorf("encoder_input shape %v is not [1 + crops, 3, %d, %d]", r.Primary.Shape, m.cfg.Height, m.cfg.Width)
	}
	sizes := wire().Sizes
	if err := family.CheckSizes(r, sizes); err != nil {
		return family.Summary{}, err
	}
	s, err := family.CheckPlanes(r, []int{views, 3, m.cfg.Height, m.cfg.Width}, views*m.cfg.ImageSeqLength, sizes)
	s.Notes = append(s.Notes, fmt.Sprintf("num_crops %d", views-1))
	return s, err
}
