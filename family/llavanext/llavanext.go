// Package llavanext is the LLaVA-NeXT model family (model_type llava_next,
// LlavaNextForConditionalGeneration) on the anyres processor of package
// vision/llavanext.
//
// What is its own: each <image> the chat template renders becomes the
// unpadded tile grid's tokens, one newline token per row and the base
// view's (vision/llavanext); the token is looked up in the tokenizer by the
// text the processor configuration names. Wire layout as vLLM's LLaVA-NeXT:
// pixel_values batched, [1, 1 + tiles, 3, 336, 336] per image, with
// image_sizes int64 [1, 2] = [[height, width]] of the source, which
// `mmgate preprocess` prints too; no tool-call or reasoning tags.
//
// The family and its models are immutable and safe for concurrent use.
package llavanext

import (
	"fmt"
	"slices"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	vnext "github.com/mmgate/mmgate/vision/llavanext"
)

// imageSizes is the side tensor of the source size.
const imageSizes = "image_sizes"

// New returns the LLaVA-NeXT family.
func New() family.Family {
	return &family.Spec{FamilyName: "llava-next", Types: []string{vnext.ModelType},
		Archs: []string{"LlavaNextForConditionalGeneration"}, LoadModel: load}
}

// model is one loaded LLaVA-NeXT model.
type model struct {
	family.ImageOnly
	cfg  *vnext.Config
	plan *vnext.Processor // plans the images the worker checks
}

func load(f family.Family, c *family.Config) (family.Model, error) {
	base, cfg, p, err := family.LoadImageOnly(f, c, family.Layout{Primary: "pixel_values", Batched: []string{imageSizes}}, vnext.LoadConfig, vnext.New)
	if err != nil {
		return nil, err
	}
	return &model{ImageOnly: base, cfg: cfg, plan: p}, nil
}

// ImageProcessor implements family.Model.
func (m *model) ImageProcessor(o vision.ProcessorOptions) (vision.Processor, error) {
	return vnext.New(m.cfg, o)
}

// Extras implements family.Model: image_sizes [[height, width]].
func (m *model) Extras(it family.Item) []family.Field {
	hw := vnext.ImageSizes(it.Plan)
	return []family.Field{{Key: imageSizes, Value: [][2]int{hw}}}
}

// Specials implements family.Model: <image>, which is its own anchor.
func (m *model) Specials(tok prompt.Tokenizer) (*prompt.Specials, error) {
	return family.LookupSpecials(tok, family.SpecialTexts{Pad: map[vision.Modality]string{vision.Image: m.cfg.Prompt.ImageToken}})
}

// SideTensors implements family.Model: image_sizes.
func (m *model) SideTensors(it family.Item) []family.NamedTensor {
	hw := vnext.ImageSizes(it.Plan)
	return []family.NamedTensor{family.Int64Tensor(imageSizes, []int{1, 2}, int64(hw[0]), int64(hw[1]))}
}

// CheckReceived implements family.Model: the image_sizes of the item
// decide its plan, whose shape and token count the pixels and placeholders
// must have.
func (m *model) CheckReceived(r family.Received) (family.Summary, error) {
	t, ok := r.SideTensor(imageSizes)
	if !ok {
		return family.Summary{}, fmt.Errorf("missing %s", imageSizes)
	}
	hw, err := family.ReadInt64s(t.Tensor, 2)
	if err != nil {
		return family.Summary{}, fmt.Errorf("%s: %v", imageSizes, err)
	}
	if hw[0] < 1 || hw[1] < 1 || hw[0] > family.MaxGrid*64 || hw[1] > family.MaxGrid*64 {
		return family.Summary{}, fmt.Errorf("%s [%d, %d] out of range", imageSizes, hw[0], hw[1])
	}
	plan, err := m.plan.PlanImage(int(hw[1]), int(hw[0]), vision.Overrides{})
	if err != nil {
		return family.Summary{}, fmt.Errorf("%s [%d, %d]: %v", imageSizes, hw[0], hw[1], err)
	}
	want := plan.Shape()
	padded, err := unpad(&r, want)
	if err != nil {
		return family.Summary{}, err
	}
	s, err := family.CheckPlanes(r, want, plan.Tokens, imageSizes)
	s.Notes = append(s.Notes, fmt.Sprintf("image_sizes %dx%d", hw[0], hw[1]))
	if padded != nil {
		s.Unpadded = len(r.Primary.Data)
		s.Notes = append(s.Notes, fmt.Sprintf("padded to %d tiles", padded[1]))
	}
	return s, err
}

// unpad drops the tiles that pad r's pixels to a batch's largest item (a
// batched [1, tiles, 3, h, w] input, as Hugging Face's processor pads a
// batch and vLLM's model drops by image_sizes): r's primary becomes the
// item's own want-shaped pixels, and the padded shape is returned (nil
// when there was no padding). Padding must be zeros.
func unpad(r *family.Received, want []int) ([]int, error) {
	got := r.Primary.Shape
	if len(got) != len(want) || len(got) < 2 || got[1] <= want[1] || !slices.Equal(got[2:], want[2:]) || got[0] != want[0] {
		return nil, nil
	}
	n, err := tensor.ByteSize(r.Primary.DType, want)
	if all, err2 := tensor.ByteSize(r.Primary.DType, got); err != nil || err2 != nil || all != len(r.Primary.Data) {
		return nil, nil // not pixels of its shape: the shape check refuses it
	}
	if slices.ContainsFunc(r.Primary.Data[n:], func(b byte) bool { return b != 0 }) {
		return nil, fmt.Errorf("pixels %v padded beyond the item's %v with non-zero values", got, want)
	}
	r.Primary.Shape, r.Primary.Data = want, r.Primary.Data[:n]
	return got, nil
}
