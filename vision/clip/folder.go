package clip

import (
	"fmt"

	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/hfconfig"
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

// ParseFolder resolves the configuration of a CLIP-based LLaVA model
// folder from its files: preprocessor_config.json (required; also decoded
// into extra when extra is not nil), processor_config.json,
// tokenizer_config.json and config.json (optional; when present its
// model_type must be modelType). The image_processor_type, when given,
// must be class or its Fast / Pil form.
func ParseFolder(f hfconfig.Files, modelType, class string, extra any) (*Config, error) {
	var pre rawImageConfig
	var proc rawProcessor
	var tok rawTokenizer
	model := rawModel{ModelType: modelType}
	if err := f.DecodeAll(&pre, &proc, &tok, &model); err != nil {
		return nil, err
	}
	if extra != nil {
		if err := hfconfig.Decode("preprocessor_config.json", f.Preprocessor, extra); err != nil {
			return nil, err
		}
	}
	if model.ModelType != modelType {
		return nil, fmt.Errorf("model_type %q, want %q: %w", model.ModelType, modelType, vision.ErrUnsupported)
	}
	switch pre.ImageProcessorType {
	case "", class, class + "Fast", class + "Pil":
	default:
		return nil, fmt.Errorf("image_processor_type %q, want %s: %w", pre.ImageProcessorType, class, vision.ErrUnsupported)
	}
	ic, err := pre.resolve()
	if err != nil {
		return nil, err
	}
	pc, err := resolvePrompt(&proc, &tok, &model)
	if err != nil {
		return nil, err
	}
	return &Config{Image: ic, Prompt: pc}, nil
}

func resolvePrompt(proc *rawProcessor, tok *rawTokenizer, model *rawModel) (PromptConfig, error) {
	pc := PromptConfig{Strategy: hfconfig.First(proc.Strategy, model.Strategy, "default")}
	pc.ImageToken = hfconfig.First(tok.ImageToken, tok.Extra["image_token"], proc.ImageToken, "<image>")
	patch := proc.PatchSize
	if patch == nil {
		patch = model.Vision.PatchSize
	}
	var err error
	if pc.PatchSize, err = hfconfig.Int("patch_size", patch, 0); err != nil {
		return pc, err
	}
	if pc.NumAdditionalImageTokens, err = hfconfig.Int("num_additional_image_tokens", proc.NumAdditional, 0); err != nil {
		return pc, err
	}
	if pc.ImageTokenID, err = hfconfig.Int("image_token_index", model.ImageTokenID, -1); err != nil {
		return pc, err
	}
	return pc, pc.Validate()
}

// LoadConfig reads a LLaVA-1.5 model folder (hfconfig.ReadFiles) and parses
// it.
func LoadConfig(dir string) (*Config, error) { return hfconfig.Load("clip", dir, ParseConfig) }

// ParseConfig resolves a LLaVA-1.5 configuration from a model folder's
// files (see ParseFolder; the image processor is CLIPImageProcessor).
func ParseConfig(f hfconfig.Files) (*Config, error) {
	cfg, err := ParseFolder(f, ModelType, "CLIPImageProcessor", nil)
	if err != nil {
		return nil, fmt.Errorf("clip: %w", err)
	}
	return cfg, nil
}
