// Package glm4v is the GLM-4.1V / GLM-4.5V model family (model_type glm4v
// and glm4v_moe) on the processor of package vision/glm4v.
//
// What is its own: the chat template renders an image as
// <|begin_of_image|><|image|><|end_of_image|>, whose <|image|> becomes
// t·h·w/4 pads (the structural range is that run, as vLLM places it), and a
// video as <|begin_of_video|><|video|><|end_of_video|>, replaced by one
// <|begin_of_image|> + pads + <|end_of_image|> + second per temporal group
// inside <|begin_of_video|> … <|end_of_video|> (the structural range is
// that whole replacement). Inside a video the pads are <|video|>, as vLLM's
// GLM-4.1V processor writes them (Glm4vProcessor repeats <|image|>): the
// gateway then tells an image's pads from a video's by their token. Every
// token is looked up in the tokenizer by text (the fixture's tokenizer is a
// stand-in whose ids differ from config.json's). Pixels and grids travel as
// for Qwen2-VL (family.GridLayout); reasoning is in <think> … </think>.
//
// The family and its models are immutable and safe for concurrent use.
package glm4v

import (
	"encoding/json"
	"fmt"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/vision"
	vglm "github.com/mmgate/mmgate/vision/glm4v"
)

// New returns the GLM-4.1V / GLM-4.5V family.
func New() family.Family {
	return &family.Spec{FamilyName: "glm4v", Types: []string{vglm.ModelGLM4V, vglm.ModelGLM4VMoE},
		Archs: []string{"Glm4vForConditionalGeneration", "Glm4vMoeForConditionalGeneration"}, LoadModel: load}
}

// model is one loaded GLM-4V model.
type model struct {
	fam       family.Family
	modelType string
	cfg       *vglm.Config
	plan      *vglm.Processor // lays out prompts (no pixels)
}

func load(f family.Family, c *family.Config) (family.Model, error) {
	cfg, err := vglm.LoadConfig(c.Dir)
	if err != nil {
		return nil, err
	}
	m := &model{fam: f, modelType: c.ModelType, cfg: cfg}
	if m.plan, err = m.processor(vision.ProcessorOptions{Workers: 1}); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *model) Family() family.Family { return m.fam }
func (m *model) ModelType() string     { return m.modelType }
func (m *model) Modalities() []vision.Modality {
	return []vision.Modality{vision.Image, vision.Video}
}

// processor builds the processor with o, video pads being the video token.
func (m *model) processor(o vision.ProcessorOptions) (*vglm.Processor, error) {
	return vglm.New(m.cfg, vglm.Options{Options: o, VideoFramePad: m.cfg.VideoToken})
}

// ImageProcessor implements family.Model.
func (m *model) ImageProcessor(o vision.ProcessorOptions) (vision.Processor, error) {
	return m.processor(o)
}

// VideoProcessor implements family.Model.
func (m *model) VideoProcessor(o vision.ProcessorOptions) (vision.VideoProcessor, error) {
	return m.processor(o)
}

// ProcessorKey is the processor configuration as JSON.
func (m *model) ProcessorKey() string {
	b, _ := json.Marshal(m.cfg)
	return string(b)
}

// Extras implements family.Model: grid_thw.
func (m *model) Extras(it family.Item) []family.Field { return family.GridExtras(it) }

// Specials implements family.Model.
func (m *model) Specials(tok prompt.Tokenizer) (*prompt.Specials, error) {
	c := m.cfg
	return family.LookupSpecials(tok, family.SpecialTexts{
		Pad:      map[vision.Modality]string{vision.Image: c.ImageToken, vision.Video: c.VideoToken},
		Start:    c.BeginImage,
		End:      c.EndImage,
		Anchor:   map[vision.Modality]string{vision.Video: m.plan.VideoAnchor()},
		Reserved: []string{c.BeginVideo, c.EndVideo},
	})
}

// Expansion implements family.Model: an image's pads in one run inside its
// anchor; a video's replacement with one run per temporal group, framed as
// one structural range.
func (m *model) Expansion(it family.Item) prompt.Expansion {
	if it.Video == nil {
		return prompt.Expansion{Tokens: it.Plan.Tokens}
	}
	pr := m.plan.VideoPrompt(*it.Video)
	return prompt.Expansion{Tokens: it.Plan.Tokens, Text: pr.Text, Runs: pr.Runs, Frame: true}
}

// Layout implements family.Model: the Qwen2-VL field layout.
func (m *model) Layout(v vision.Modality) family.Layout { return family.GridLayout(v) }

// SideTensors implements family.Model: the item's grid.
func (m *model) SideTensors(it family.Item) []family.NamedTensor { return family.GridSideTensors(it) }

// Output implements family.Model: GLM-4.1V-Thinking reasons in <think>.
func (m *model) Output() family.OutputFormat {
	return family.OutputFormat{ThinkStart: "<think>", ThinkEnd: "</think>"}
}

// CheckReceived implements family.Model: family.CheckGrid with the merge
// size of the item's processor values.
func (m *model) CheckReceived(r family.Received) (family.Summary, error) {
	merge := m.cfg.Image.MergeSize
	if r.Modality == vision.Video {
		merge = m.cfg.Video.MergeSize
	}
	if merge < 1 {
		return family.Summary{}, fmt.Errorf("glm4v: merge size %d", merge)
	}
	return family.CheckGrid(r, merge)
}
