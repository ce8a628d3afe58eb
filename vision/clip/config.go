package clip

import (
	"fmt"

	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/hfconfig"
	"github.com/mmgate/mmgate/vision/norm"
	"github.com/mmgate/mmgate/vision/planar"
)

// ModelType is the config.json model_type this package's Processor serves.
const ModelType = "llava"

const (
	defaultEdge = 224 // CLIPImageProcessor size.shortest_edge and crop_size
	maxSide     = 1 << 14
)

// ImageConfig are the CLIP image processor settings.
type ImageConfig struct {
	DoResize     bool
	Size         hfconfig.Size // {ShortestEdge} or {Height, Width}
	Resample     resample.Filter
	DoCenterCrop bool
	CropHeight   int
	CropWidth    int
	Norm         norm.Params
}

// PromptConfig are the LLaVA processor settings that decide the token count
// and the image token.
type PromptConfig struct {
	PatchSize                int    // processor patch_size
	Strategy                 string // vision_feature_select_strategy: "default" or "full"
	NumAdditionalImageTokens int    // num_additional_image_tokens
	ImageToken               string // <image>
	ImageTokenID             int    // config.json image_token_index, -1 when absent
}

// Config is a resolved LLaVA-1.5 processor configuration.
type Config struct {
	Image  ImageConfig
	Prompt PromptConfig
}

// rawImageConfig is the JSON of a CLIP-style preprocessor_config.json.
type rawImageConfig struct {
	planar.RawConfig
	ImageProcessorType string `json:"image_processor_type"`
}

// resolve applies the CLIP class defaults to the file's values.
func (r *rawImageConfig) resolve() (ImageConfig, error) {
	d := planar.Defaults{Resample: resample.Bicubic}
	d.Mean, d.Std = norm.OpenAICLIP()
	c := ImageConfig{DoResize: hfconfig.Bool(r.DoResize, true), DoCenterCrop: hfconfig.Bool(r.DoCenterCrop, true)}
	var err error
	if c.Norm, err = r.Norm(d); err != nil {
		return c, err
	}
	if c.Resample, err = r.Filter(d); err != nil {
		return c, err
	}
	if c.Size, err = hfconfig.ParseSize("size", r.Size, false, hfconfig.Size{ShortestEdge: defaultEdge}); err != nil {
		return c, err
	}
	crop, err := hfconfig.ParseSize("crop_size", r.CropSize, true, hfconfig.Size{Height: defaultEdge, Width: defaultEdge})
	if err != nil {
		return c, err
	}
	c.CropHeight, c.CropWidth = crop.Height, crop.Width
	return c, c.Validate()
}

// Validate checks that the settings are ones this package implements.
func (c *ImageConfig) Validate() error {
	s := c.Size
	if c.DoResize {
		exact := s.Height > 0 && s.Width > 0 && s.ShortestEdge == 0 && s.LongestEdge == 0
		short := s.ShortestEdge > 0 && s.Height == 0 && s.Width == 0 && s.LongestEdge == 0
		if !exact && !short {
			return fmt.Errorf("clip: size %+v: want {shortest_edge} or {height, width}: %w", s, vision.ErrUnsupported)
		}
		if max(s.Height, s.Width, s.ShortestEdge) > maxSide {
			return fmt.Errorf("clip: size %+v: %w", s, vision.ErrBadOptions)
		}
	}
	if c.DoCenterCrop && (c.CropHeight < 1 || c.CropWidth < 1 || c.CropHeight > maxSide || c.CropWidth > maxSide) {
		return fmt.Errorf("clip: crop_size %dx%d: %w", c.CropWidth, c.CropHeight, vision.ErrBadOptions)
	}
	if c.Resample < resample.Nearest || c.Resample > resample.Hamming {
		return fmt.Errorf("clip: resample %d: %w", c.Resample, vision.ErrUnsupported)
	}
	if !c.Norm.Valid() {
		return fmt.Errorf("clip: rescale/normalize %+v: %w", c.Norm, vision.ErrBadOptions)
	}
	return nil
}

// Validate checks the prompt settings.
func (c *PromptConfig) Validate() error {
	if c.PatchSize < 1 || c.PatchSize > 1024 || c.NumAdditionalImageTokens < 0 || c.NumAdditionalImageTokens > 64 {
		return fmt.Errorf("clip: patch_size %d, num_additional_image_tokens %d: %w",
			c.PatchSize, c.NumAdditionalImageTokens, vision.ErrBadOptions)
	}
	if c.Strategy != "default" && c.Strategy != "full" {
		return fmt.Errorf("clip: vision_feature_select_strategy %q: %w", c.Strategy, vision.ErrUnsupported)
	}
	if c.ImageToken == "" {
		return fmt.Errorf("clip: empty image token: %w", vision.ErrBadOptions)
	}
	return nil
}

// NormParams are the rescale and normalize settings (planar.Settings).
func (c *Config) NormParams() norm.Params { return c.Image.Norm }

// Validate checks both parts.
func (c *Config) Validate() error {
	if c == nil {
		return fmt.Errorf("clip: nil config: %w", vision.ErrBadOptions)
	}
	if err := c.Image.Validate(); err != nil {
		return err
	}
	return c.Prompt.Validate()
}
