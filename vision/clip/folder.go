package clip

import (
	"fmt"

	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/planar"
)

type rawProcessor struct {
	PatchSize     *float64 `json:"patch_size"`
	Strategy      string   `json:"vision_feature_select_strategy"`
	NumAdditional *float64 `json:"num_additional_image_tokens"`
	ImageToken    string   `json:"image_token"`
}

type rawTokenizer struct {
	ImageToken string            `json:"image_token"`
	Extra      map[string]string `json:"extra_special_tokens"`
}

type rawModel struct {
	ModelType    string   `json:"model_type"`
	ImageTokenID *float64 `json:"image_token_index"`
	Strategy     string   `json:"vision_feature_select_strategy"`
	Vision       struct {
		PatchSize *float64 `json:"patch_size"`
	} `json:"vision_config"`
}

// ParseFolder decodes the files every CLIP-based LLaVA model folder has:
// preprocessor_config.json (required; also decoded into extra when extra
// is not nil), processor_config.json, tokenizer_config.json and
// config.json (optional; when present its model_type must be modelType).
// It returns the raw image settings and the resolved prompt settings.
func ParseFolder(f planar.Files, modelType string, extra any) (*RawImageConfig, PromptConfig, error) {
	var pre RawImageConfig
	var proc rawProcessor
	var tok rawTokenizer
	model := rawModel{ModelType: modelType}
	if f.Preprocessor == nil {
		return nil, PromptConfig{}, fmt.Errorf("no preprocessor_config.json: %w", vision.ErrBadOptions)
	}
	for _, x := range []struct {
		name string
		data []byte
		v    any
	}{{"preprocessor_config.json", f.Preprocessor, &pre}, {"preprocessor_config.json", f.Preprocessor, extra},
		{"processor_config.json", f.Processor, &proc}, {"tokenizer_config.json", f.Tokenizer, &tok},
		{"config.json", f.Model, &model}} {
		if x.v == nil {
			continue
		}
		if err := planar.Decode(x.name, x.data, x.v); err != nil {
			return nil, PromptConfig{}, err
		}
	}
	if model.ModelType != modelType {
		return nil, PromptConfig{}, fmt.Errorf("model_type %q, want %q: %w", model.ModelType, modelType, vision.ErrUnsupported)
	}
	pc, err := resolvePrompt(&proc, &tok, &model)
	if err != nil {
		return nil, pc, err
	}
	return &pre, pc, nil
}

func resolvePrompt(proc *rawProcessor, tok *rawTokenizer, model *rawModel) (PromptConfig, error) {
	pc := PromptConfig{Strategy: planar.First(proc.Strategy, model.Strategy, "default")}
	pc.ImageToken = planar.First(tok.ImageToken, tok.Extra["image_token"], proc.ImageToken, "<image>")
	patch := proc.PatchSize
	if patch == nil {
		patch = model.Vision.PatchSize
	}
	var err error
	if pc.PatchSize, err = planar.Int("patch_size", patch, 0); err != nil {
		return pc, err
	}
	if pc.NumAdditionalImageTokens, err = planar.Int("num_additional_image_tokens", proc.NumAdditional, 0); err != nil {
		return pc, err
	}
	if pc.ImageTokenID, err = planar.Int("image_token_index", model.ImageTokenID, -1); err != nil {
		return pc, err
	}
	return pc, pc.Validate()
}

// LoadConfig reads a LLaVA-1.5 model folder (planar.ReadFiles) and parses
// it.
func LoadConfig(dir string) (*Config, error) {
	f, err := planar.ReadFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("clip: load %s: %w", dir, err)
	}
	cfg, err := ParseConfig(f)
	if err != nil {
		return nil, fmt.Errorf("clip: load %s: %w", dir, err)
	}
	return cfg, nil
}

// ParseConfig resolves a LLaVA-1.5 configuration from a model folder's
// files (see ParseFolder). Its image_processor_type, when given, must be
// CLIPImageProcessor.
func ParseConfig(f planar.Files) (*Config, error) {
	raw, pc, err := ParseFolder(f, ModelType, nil)
	if err != nil {
		return nil, fmt.Errorf("clip: %w", err)
	}
	switch raw.ImageProcessorType {
	case "", "CLIPImageProcessor", "CLIPImageProcessorFast", "CLIPImageProcessorPil":
	default:
		return nil, fmt.Errorf("clip: image_processor_type %q: %w", raw.ImageProcessorType, vision.ErrUnsupported)
	}
	ic, err := raw.Resolve()
	if err != nil {
		return nil, fmt.Errorf("clip: %w", err)
	}
	return &Config{Image: ic, Prompt: pc}, nil
}
