// Package text is the family of text-only models that no media family
// claims: a registry's fallback (family.Registry.WithFallback) for a model
// folder whose config.json declares no media (family.DeclaresMedia), such as
// a Qwen3 or Llama text checkpoint. The gateway serves such a model text
// only: it takes no media and has no media tokens.
//
// Qwen text models (model types qwen2, qwen2_moe, qwen3, qwen3_moe, …: any
// model_type starting with "qwen") write tool calls in <tool_call> blocks
// and reasoning in <think>, as their VL siblings do; other text models get
// no output format.
//
// The family and its models are immutable and safe for concurrent use.
package text

import (
	"fmt"
	"strings"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/vision"
)

// New returns the text family. It claims no model type: a registry uses it
// as its fallback.
func New() family.Family {
	return &family.Spec{FamilyName: "text", LoadModel: load}
}

// model is one text-only model.
type model struct {
	fam       family.Family
	modelType string
}

func load(f family.Family, c *family.Config) (family.Model, error) {
	if c.Preset != "" {
		return nil, fmt.Errorf("text: no presets: %w", vision.ErrUnsupported)
	}
	return &model{fam: f, modelType: c.ModelType}, nil
}

func (m *model) Family() family.Family                        { return m.fam }
func (m *model) ModelType() string                            { return m.modelType }
func (m *model) Modalities() []vision.Modality                { return []vision.Modality{} }
func (m *model) ProcessorKey() string                         { return "" }
func (m *model) Extras(family.Item) []family.Field            { return nil }
func (m *model) Expansion(family.Item) prompt.Expansion       { return prompt.Expansion{} }
func (m *model) Layout(vision.Modality) family.Layout         { return family.Layout{} }
func (m *model) SideTensors(family.Item) []family.NamedTensor { return nil }

// errNoMedia is the error of everything media-related.
func (m *model) errNoMedia() error {
	return fmt.Errorf("text: model type %q takes no media: %w", m.modelType, vision.ErrUnsupported)
}

// ImageProcessor implements family.Model: none.
func (m *model) ImageProcessor(vision.ProcessorOptions) (vision.Processor, error) {
	return nil, m.errNoMedia()
}

// VideoProcessor implements family.Model: none.
func (m *model) VideoProcessor(vision.ProcessorOptions) (vision.VideoProcessor, error) {
	return nil, m.errNoMedia()
}

// Specials implements family.Model: no media tokens.
func (m *model) Specials(prompt.Tokenizer) (*prompt.Specials, error) {
	return &prompt.Specials{Pad: map[prompt.Modality]prompt.Token{}}, nil
}

// Output implements family.Model: Hermes-style tags for Qwen text models.
func (m *model) Output() family.OutputFormat {
	if strings.HasPrefix(m.modelType, "qwen") {
		return family.HermesOutput()
	}
	return family.OutputFormat{}
}

// CheckReceived implements family.Model: a text model receives no media.
func (m *model) CheckReceived(family.Received) (family.Summary, error) {
	return family.Summary{}, m.errNoMedia()
}
