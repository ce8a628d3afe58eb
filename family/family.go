package family

import (
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// Family is one model family. Its methods describe how it is matched; Load
// gives the per-model value that does the rest.
type Family interface {
	// Name identifies the family in messages and logs ("qwen2.5-vl").
	Name() string
	// ModelTypes are the config.json model_type values it serves.
	ModelTypes() []string
	// Architectures are the config.json architectures entries it serves
	// when no family claims the model_type.
	Architectures() []string
	// Presets are names that load a published configuration without a
	// model folder (`mmgate preprocess --model qwen3-vl`); nil when none.
	Presets() []string
	// Load reads the model c describes: a folder whose config.json
	// matched, or a preset (c.Preset set, no folder).
	Load(c *Config) (Model, error)
}

// Config is what the registry knows of the model it hands to a family.
type Config struct {
	// Dir is the model folder; "" for a preset.
	Dir string
	// Preset is the preset name when the model is loaded by name.
	Preset string
	// ModelType and Architectures are config.json's values (for a preset,
	// the family's first model type).
	ModelType     string
	Architectures []string
	// JSON is config.json as read; nil for a preset.
	JSON []byte
}

// Model is one loaded model of a family: everything family-specific the
// gateway, the reference worker and the command line need. It is immutable
// and safe for concurrent use.
type Model interface {
	// Family is the family that loaded the model.
	Family() Family
	// ModelType is config.json's model_type (a preset's: the family's).
	ModelType() string
	// Modalities are the media the model takes, in the order image,
	// video, audio; empty for a model that takes none.
	Modalities() []vision.Modality

	// ImageProcessor builds the model's image processor with o.
	ImageProcessor(o vision.ProcessorOptions) (vision.Processor, error)
	// VideoProcessor builds the model's video processor with o; an error
	// wrapping vision.ErrUnsupported when the family has none.
	VideoProcessor(o vision.ProcessorOptions) (vision.VideoProcessor, error)
	// ProcessorKey identifies the processor configuration, so that
	// preprocessed tensors are cached per configuration.
	ProcessorKey() string
	// Extras are the family's fields of a `mmgate preprocess` line for a
	// planned item, in output order (Qwen-VL: grid_thw).
	Extras(it Item) []Field

	// Specials are the model's media tokens, looked up in tok: pads,
	// anchors, the tokens reserved from user text. An error wrapping
	// vision.ErrUnsupported when the model has no tokens (a preset).
	Specials(tok prompt.Tokenizer) (*prompt.Specials, error)
	// Expansion lays a planned item out in the prompt: the text that
	// replaces its anchor and the length of each pad run. Its runs add up
	// to it.Plan.Tokens.
	Expansion(it Item) prompt.Expansion

	// Layout is how tensors of modality m travel to a worker.
	Layout(m vision.Modality) Layout
	// SideTensors are the item's tensors besides its pixels, built from
	// its plan (Qwen-VL: image_grid_thw or video_grid_thw, and Qwen2.5-VL's
	// second_per_grid_ts for videos).
	SideTensors(it Item) []NamedTensor

	// Output is how the model writes tool calls and reasoning; the zero
	// value when the family has no such format.
	Output() OutputFormat

	// CheckReceived checks one item as the model's worker reads it: the
	// side tensors the modality needs and their agreement with the pixels
	// and the placeholder tokens. It returns what the reference worker
	// reports about the item.
	CheckReceived(r Received) (Summary, error)
}

// Item is one planned media item.
type Item struct {
	Modality vision.Modality
	// Plan is the image's plan, or the video's (Video.Plan).
	Plan vision.Plan
	// Video is the video plan; nil for images.
	Video *vision.VideoPlan
}

// ImageItem is the Item of a planned image.
func ImageItem(p vision.Plan) Item { return Item{Modality: vision.Image, Plan: p} }

// VideoItem is the Item of a planned video.
func VideoItem(vp *vision.VideoPlan) Item {
	return Item{Modality: vision.Video, Plan: vp.Plan, Video: vp}
}

// Field is one extra key of a JSON line, in the order the family gives.
type Field struct {
	Key   string
	Value any
}

// NamedTensor is a tensor with its wire name.
type NamedTensor struct {
	Name string
	tensor.Tensor
}

// Layout is how the tensors of one modality travel to a worker. Protocols
// that send one tensor per item (TokenSpeed) use the names; protocols that
// batch items (vLLM) also use the rest.
type Layout struct {
	// Primary is the name of the pixels tensor ("pixel_values",
	// "pixel_values_videos").
	Primary string
	// Sizes, when not "", makes the primary tensor flat: items are
	// concatenated along dim 0 and an int64 tensor of this name holds
	// each item's dim 0 ("patches_per_image"). "" means the primary
	// tensor is batched (dim 0 is the item; items that differ in dim 1,
	// LLaVA-NeXT's tiles, are padded to the largest with zeros).
	Sizes string
	// Batched are the side tensors (and the sizes tensor) whose dim 0 is
	// the item index.
	Batched []string
	// KeepOnCPU are the tensors the worker keeps on the CPU.
	KeepOnCPU []string
}

// OutputFormat is how a model writes tool calls and reasoning in its
// output text; empty fields when it has no such tags.
type OutputFormat struct {
	ToolCallStart, ToolCallEnd string
	ThinkStart, ThinkEnd       string
}

// HermesOutput is the format of Qwen2, Qwen2.5, Qwen3 and their VL models:
// tool calls in <tool_call> blocks (Hermes-style JSON), reasoning in <think>.
func HermesOutput() OutputFormat {
	return OutputFormat{ToolCallStart: "<tool_call>", ToolCallEnd: "</tool_call>", ThinkStart: "<think>", ThinkEnd: "</think>"}
}

// Received is one media item as a worker read it.
type Received struct {
	Modality vision.Modality
	// Primary is the pixels tensor (its Data is only valid during the
	// call).
	Primary tensor.Tensor
	// Side are the item's other tensors.
	Side []NamedTensor
	// Tokens is the number of placeholder tokens over the item's ranges.
	Tokens int
}

// Summary is what the reference worker reports about an item it accepted:
// Head before the transport details ("grid 1x34x46"), Notes after them
// ("second_per_grid_ts 0.5").
type Summary struct {
	Head  string
	Notes []string
	// Unpadded, when not 0, is how many leading bytes of the primary
	// tensor are the item's own: the rest pads a batched input to the
	// batch's largest item, which the model drops (LLaVA-NeXT's tiles).
	// The worker fingerprints the item's own bytes.
	Unpadded int
}

// SideTensor returns the side tensor called name.
func (r *Received) SideTensor(name string) (NamedTensor, bool) {
	for _, t := range r.Side {
		if t.Name == name {
			return t, true
		}
	}
	return NamedTensor{}, false
}
