// Package qwenvl is the Qwen-VL model families — Qwen2-VL, Qwen2.5-VL and
// Qwen3-VL (with Qwen3-VL-MoE) — on the processors of package vision/qwenvl.
//
// What is theirs: media tokens from config.json (image_token_id,
// video_token_id, vision_start_token_id, vision_end_token_id, read by
// prompt.ReadSpecials); the template renders each item as
// <|vision_start|><|image_pad|><|vision_end|> (<|video_pad|> for videos),
// whose pad becomes gt·gh·gw/merge² pads, except Qwen3-VL videos, which
// become one "<t seconds>" + start/pads/end group per temporal group (its
// structural range starts at the first group's <|vision_start|>); pixels as
// flat patch rows [t·h·w, 3·τ·p²] with image_grid_thw / video_grid_thw int64
// [1, 3] (and Qwen2.5-VL's float32 second_per_grid_ts per video), grids kept
// on the CPU; tool calls in <tool_call> blocks and reasoning in <think>.
//
// The families and their models are immutable and safe for concurrent use.
package qwenvl

import (
	"fmt"
	"slices"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/vision"
	vqwen "github.com/mmgate/mmgate/vision/qwenvl"
)

// qwenFamily is one of the three Qwen-VL families.
type qwenFamily struct {
	name    string
	types   []string // the first is the processor type of a model matched by architecture
	archs   []string
	presets []string
}

// Qwen2VL is the Qwen2-VL family (model_type qwen2_vl, preset "qwen2-vl").
func Qwen2VL() family.Family {
	return &qwenFamily{name: "qwen2-vl", types: []string{vqwen.ModelQwen2VL},
		archs: []string{"Qwen2VLForConditionalGeneration"}, presets: []string{"qwen2-vl"}}
}

// Qwen25VL is the Qwen2.5-VL family (model_type qwen2_5_vl, preset
// "qwen2.5-vl").
func Qwen25VL() family.Family {
	return &qwenFamily{name: "qwen2.5-vl", types: []string{vqwen.ModelQwen25VL},
		archs: []string{"Qwen2_5_VLForConditionalGeneration"}, presets: []string{"qwen2.5-vl"}}
}

// Qwen3VL is the Qwen3-VL family (model_type qwen3_vl and qwen3_vl_moe,
// preset "qwen3-vl"), which also serves Qwen3.5 / Qwen3.6 (qwen3_5,
// qwen3_5_moe): transformers maps them to Qwen3VLProcessor with the
// Qwen2-VL image processor and the Qwen3-VL video processor.
func Qwen3VL() family.Family {
	return &qwenFamily{name: "qwen3-vl", types: []string{vqwen.ModelQwen3VL, vqwen.ModelQwen3VLMoE, "qwen3_5", "qwen3_5_moe"},
		archs: []string{"Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration",
			"Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"}, presets: []string{"qwen3-vl"}}
}

func (f *qwenFamily) Name() string            { return f.name }
func (f *qwenFamily) ModelTypes() []string    { return slices.Clone(f.types) }
func (f *qwenFamily) Architectures() []string { return slices.Clone(f.archs) }
func (f *qwenFamily) Presets() []string       { return slices.Clone(f.presets) }

// Load reads a preset's published configuration, or a folder's config.json
// token ids and, when the model takes media, its processor configurations.
func (f *qwenFamily) Load(c *family.Config) (family.Model, error) {
	if c.Preset != "" {
		cfg, err := vqwen.PresetConfig(c.Preset)
		if err != nil {
			return nil, err
		}
		return &model{fam: f, modelType: cfg.ModelType, cfg: cfg, modalities: []vision.Modality{vision.Image, vision.Video},
			visionMerge: cfg.MergeSize}, nil
	}
	info, err := readConfig(c.JSON)
	if err != nil {
		return nil, fmt.Errorf("qwenvl: load %s: %w", c.Dir, err)
	}
	m := &model{fam: f, modelType: c.ModelType, json: c.JSON, modalities: info.modalities, visionMerge: info.merge}
	if len(m.modalities) > 0 {
		if m.cfg, err = vqwen.LoadFolder(c.Dir, f.processorType(c.ModelType)); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// processorType is the model type the processor is configured for: the
// model's own when the processor package serves it, else the family's
// first (Qwen3.5, or a model matched by its architecture).
func (f *qwenFamily) processorType(modelType string) string {
	switch modelType {
	case vqwen.ModelQwen2VL, vqwen.ModelQwen25VL, vqwen.ModelQwen3VL, vqwen.ModelQwen3VLMoE:
		if slices.Contains(f.types, modelType) {
			return modelType
		}
	}
	return f.types[0]
}
