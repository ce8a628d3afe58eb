// Package internvl is the InternVL3 / InternVL3.5 model family in its
// Hugging Face–native form (model_type internvl,
// InternVLForConditionalGeneration) on the processor of package
// vision/internvl.
//
// What is its own: the chat template renders each image as <IMG_CONTEXT>
// (then a newline), which becomes <img> + 256·num_patches <IMG_CONTEXT> +
// </img>; the item's structural range is that whole replacement, as vLLM
// places it. The tokens are looked up in the tokenizer by the texts
// tokenizer_config.json names. Wire layout as vLLM's (InternS1 processor):
// pixel_values [num_patches, 3, 448, 448] concatenated along dim 0 with
// image_num_patches per image; no side tensors but image_num_patches,
// which a protocol that joins items gives each one. `mmgate preprocess` adds
// num_patches. No tool-call or reasoning tags.
//
// The family and its models are immutable and safe for concurrent use.
package internvl

import (
	"fmt"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/vision"
	vintern "github.com/mmgate/mmgate/vision/internvl"
)

// New returns the InternVL family.
func New() family.Family {
	return &family.Spec{FamilyName: "internvl", Types: []string{vintern.ModelType},
		Archs: []string{"InternVLForConditionalGeneration"}, LoadModel: load}
}

// wire is vLLM's field layout: pixel_values flat by image_num_patches.
func wire() family.Layout {
	return family.Layout{Primary: "pixel_values", Sizes: "image_num_patches", Batched: []string{"image_num_patches"}}
}

// model is one loaded InternVL model.
type model struct {
	family.ImageOnly
	cfg  *vintern.Config
	plan *vintern.Processor // lays out prompts (no pixels)
}

func load(f family.Family, c *family.Config) (family.Model, error) {
	base, cfg, p, err := family.LoadImageOnly(f, c, wire(), vintern.LoadConfig, vintern.New)
	if err != nil {
		return nil, err
	}
	return &model{ImageOnly: base, cfg: cfg, plan: p}, nil
}

// ImageProcessor implements family.Model.
func (m *model) ImageProcessor(o vision.ProcessorOptions) (vision.Processor, error) {
	return vintern.New(m.cfg, o)
}

// Extras implements family.Model: num_patches.
func (m *model) Extras(it family.Item) []family.Field {
	return []family.Field{{Key: "num_patches", Value: m.plan.NumPatches(it.Plan)}}
}

// Specials implements family.Model: <IMG_CONTEXT> as the pad and the
// anchor, one <img> … </img> pair per image.
func (m *model) Specials(tok prompt.Tokenizer) (*prompt.Specials, error) {
	return family.LookupSpecials(tok, family.SpecialTexts{
		Pad: map[vision.Modality]string{vision.Image: m.cfg.ContextToken}, Start: m.cfg.StartToken, End: m.cfg.EndToken,
		Anchor: map[vision.Modality]string{vision.Image: m.plan.ImageAnchor()},
	})
}

// Expansion implements family.Model: <img> + the context run + </img>,
// framed as one structural range.
func (m *model) Expansion(it family.Item) prompt.Expansion {
	pr := m.plan.ImagePrompt(it.Plan)
	return prompt.Expansion{Tokens: it.Plan.Tokens, Text: pr.Text, Runs: pr.Runs, Frame: true}
}

// CheckReceived implements family.Model: pixels [patches, 3, tile, tile]
// with a patch count tiling can give (one tile, or tiles plus the
// thumbnail), image_seq_length tokens per patch, and image_num_patches,
// when sent, equal to the patches.
func (m *model) CheckReceived(r family.Received) (family.Summary, error) {
	n := family.Views(r.Primary)
	tiling := m.cfg.MaxTiles > 1
	if n < 1 || (!tiling && n != 1) || (tiling && (n == 2 || n > m.cfg.MaxTiles+1)) {
		return family.Summary{}, fmt.Errorf("encoder_input shape %v: %d patches is not a tiling of this model", r.Primary.Shape, n)
	}
	h, w := m.cfg.TileHeight, m.cfg.TileWidth
	if !tiling && !m.cfg.DoResize {
		h, w = r.Primary.Shape[2], r.Primary.Shape[3]
	}
	sizes := wire().Sizes
	if err := family.CheckSizes(r, sizes); err != nil {
		return family.Summary{}, err
	}
	s, err := family.CheckPlanes(r, []int{n, 3, h, w}, n*m.cfg.ImageSeqLength, sizes)
	s.Notes = append(s.Notes, fmt.Sprintf("num_patches %d", n))
	return s, err
}
