package qwenvl

import (
	"encoding/json"
	"fmt"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/hfconfig"
	vqwen "github.com/mmgate/mmgate/vision/qwenvl"
)

// model is one loaded Qwen-VL model (a folder or a preset).
type model struct {
	fam        *qwenFamily
	modelType  string
	json       []byte        // config.json; nil for a preset
	cfg        *vqwen.Config // nil when the model takes no media
	modalities []vision.Modality
	// visionMerge is config.json's vision_config.spatial_merge_size, what
	// the model's vision tower merges (the worker's token rule).
	visionMerge int
}

// configInfo is what the family reads from config.json itself.
type configInfo struct {
	modalities []vision.Modality
	merge      int
}

// readConfig finds the media token ids config.json declares (at the top,
// else in text_config or thinker_config, where prompt.ReadSpecials looks)
// and the vision tower's merge size (default 2).
func readConfig(data []byte) (configInfo, error) {
	info := configInfo{merge: 2}
	scopes, err := hfconfig.TokenScopes(data)
	if err != nil {
		return info, fmt.Errorf("%v: %w", err, family.ErrBadConfig)
	}
	top := scopes[0]
	has := func(key string) bool {
		for _, sc := range scopes {
			if raw, ok := sc[key]; ok && string(raw) != "null" {
				return true
			}
		}
		return false
	}
	if has("image_token_id") {
		info.modalities = append(info.modalities, vision.Image)
	}
	if has("video_token_id") {
		info.modalities = append(info.modalities, vision.Video)
	}
	var vc struct {
		SpatialMergeSize int `json:"spatial_merge_size"`
	}
	if json.Unmarshal(top["vision_config"], &vc) == nil && vc.SpatialMergeSize > 0 {
		info.merge = vc.SpatialMergeSize
	}
	return info, nil
}

func (m *model) Family() family.Family                  { return m.fam }
func (m *model) ModelType() string                      { return m.modelType }
func (m *model) Modalities() []vision.Modality          { return append([]vision.Modality{}, m.modalities...) }
func (m *model) Layout(v vision.Modality) family.Layout { return layout(m.modelType, v) }

// Output is the Hermes-style format of Qwen2, Qwen2.5, Qwen3 and their VL
// models.
func (m *model) Output() family.OutputFormat { return family.HermesOutput() }

// processor builds the model's processor, which takes images and videos.
func (m *model) processor(o vision.ProcessorOptions) (*vqwen.Processor, error) {
	if m.cfg == nil {
		return nil, fmt.Errorf("qwenvl: model type %s declares no media tokens: %w", m.modelType, vision.ErrUnsupported)
	}
	return vqwen.New(m.cfg, o)
}

// ImageProcessor implements family.Model.
func (m *model) ImageProcessor(o vision.ProcessorOptions) (vision.Processor, error) {
	return m.processor(o)
}

// VideoProcessor implements family.Model: every Qwen-VL processor takes
// videos (Qwen2/2.5-VL as qwen-vl-utils samples them).
func (m *model) VideoProcessor(o vision.ProcessorOptions) (vision.VideoProcessor, error) {
	return m.processor(o)
}

// ProcessorKey is the processor configuration as JSON.
func (m *model) ProcessorKey() string {
	if m.cfg == nil {
		return ""
	}
	b, _ := json.Marshal(m.cfg)
	return string(b)
}

// Extras implements family.Model: grid_thw.
func (m *model) Extras(it family.Item) []family.Field { return family.GridExtras(it) }

// Specials reads the token ids of config.json.
func (m *model) Specials(tok prompt.Tokenizer) (*prompt.Specials, error) {
	if m.json == nil {
		return nil, fmt.Errorf("qwenvl: a preset has no tokens; load a model folder: %w", vision.ErrUnsupported)
	}
	return prompt.ReadSpecials(m.json, tok)
}

// Expansion implements family.Model: an image's pads in one run; a video
// in one run (Qwen2-VL, Qwen2.5-VL) or one timestamped group per temporal
// group (Qwen3-VL), whose structural range starts one token before its
// first run, on the group's <|vision_start|>.
func (m *model) Expansion(it family.Item) prompt.Expansion {
	if v := it.Video; v != nil {
		merge := 2
		if m.cfg != nil {
			merge = m.cfg.MergeSize
		}
		e := prompt.VideoExpansion(v.Timestamps, v.GridT, v.GridH, v.GridW, merge)
		if len(e.Groups) > 0 {
			e.Lead = 1
		}
		return e
	}
	return prompt.Expansion{Tokens: it.Plan.Tokens}
}
