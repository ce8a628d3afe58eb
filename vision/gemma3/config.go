package gemma3

import (
	"fmt"
	"math"

	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/hfconfig"
	"github.com/mmgate/mmgate/vision/norm"
	"github.com/mmgate/mmgate/vision/planar"
)

// ModelType is the config.json model_type this package serves.
const ModelType = "gemma3"

// Processor defaults for values the files leave out or set to null.
const (
	defaultSide        = 224 // Gemma3ImageProcessor size
	defaultMinCropSize = 256 // Gemma3ProcessorKwargs images_kwargs
	defaultMaxNumCrops = 4
	defaultMinRatio    = 1.2
	defaultSeqLength   = 256 // Gemma3Processor image_seq_length
	maxSide            = 1 << 14
)

var half = [3]float64{0.5, 0.5, 0.5}

// PanAndScan are the pan-and-scan settings.
type PanAndScan struct {
	Enabled            bool    // do_pan_and_scan
	MinCropSize        int     // pan_and_scan_min_crop_size
	MaxNumCrops        int     // pan_and_scan_max_num_crops
	MinRatioToActivate float64 // pan_and_scan_min_ratio_to_activate
}

// Tokens are the special tokens of the prompt expansion: their text (from
// tokenizer_config.json) and their id in config.json (-1 when absent).
type Tokens struct {
	BOI, EOI, Image       string // <start_of_image>, <end_of_image>, <image_soft_token>
	BOIID, EOIID, ImageID int    // boi_token_index, eoi_token_index, image_token_index
}

// Config is a resolved Gemma 3 processor configuration.
type Config struct {
	Height, Width  int // size
	Resample       resample.Filter
	Norm           norm.Params
	PanAndScan     PanAndScan
	ImageSeqLength int // image tokens per view
	Tokens         Tokens
}

type rawPreprocessor struct {
	planar.RawConfig
	DoPanAndScan *bool    `json:"do_pan_and_scan"`
	MinCropSize  *float64 `json:"pan_and_scan_min_crop_size"`
	MaxNumCrops  *float64 `json:"pan_and_scan_max_num_crops"`
	MinRatio     *float64 `json:"pan_and_scan_min_ratio_to_activate"`
}

type rawProcessor struct {
	ImageSeqLength *float64 `json:"image_seq_length"`
}

type rawTokenizer struct {
	BOI   string            `json:"boi_token"`
	EOI   string            `json:"eoi_token"`
	Image string            `json:"image_token"`
	Extra map[string]string `json:"extra_special_tokens"`
}

type rawModel struct {
	ModelType string   `json:"model_type"`
	BOIID     *float64 `json:"boi_token_index"`
	EOIID     *float64 `json:"eoi_token_index"`
	ImageID   *float64 `json:"image_token_index"`
}

// LoadConfig reads a model folder (hfconfig.ReadFiles) and parses it.
func LoadConfig(dir string) (*Config, error) { return hfconfig.Load("gemma3", dir, ParseConfig) }

// ParseConfig resolves a configuration from a model folder's files:
// preprocessor_config.json (required), processor_config.json,
// tokenizer_config.json and config.json (optional; when present its
// model_type must be gemma3). Errors wrap vision.ErrBadOptions or
// vision.ErrUnsupported.
func ParseConfig(f hfconfig.Files) (*Config, error) {
	var pre rawPreprocessor
	var proc rawProcessor
	var tok rawTokenizer
	model := rawModel{ModelType: ModelType}
	if err := f.DecodeAll(&pre, &proc, &tok, &model); err != nil {
		return nil, fmt.Errorf("gemma3: %w", err)
	}
	if model.ModelType != ModelType {
		return nil, fmt.Errorf("gemma3: model_type %q: %w", model.ModelType, vision.ErrUnsupported)
	}
	cfg, err := resolve(&pre, &proc, &tok, &model)
	if err != nil {
		return nil, fmt.Errorf("gemma3: %w", err)
	}
	return cfg, nil
}

func resolve(pre *rawPreprocessor, proc *rawProcessor, tok *rawTokenizer, model *rawModel) (*Config, error) {
	d := planar.Defaults{Mean: half, Std: half, Resample: resample.Bilinear}
	cfg := &Config{}
	var err error
	if cfg.Norm, err = pre.Norm(d); err != nil {
		return nil, err
	}
	if cfg.Resample, err = pre.Filter(d); err != nil {
		return nil, err
	}
	if !hfconfig.Bool(pre.DoResize, true) {
		return nil, fmt.Errorf("do_resize false: %w", vision.ErrUnsupported)
	}
	size, err := hfconfig.ParseSize("size", pre.Size, true, hfconfig.Size{Height: defaultSide, Width: defaultSide})
	if err != nil {
		return nil, err
	}
	if size.Height == 0 || size.Width == 0 {
		return nil, fmt.Errorf("size %+v: want height and width: %w", size, vision.ErrUnsupported)
	}
	cfg.Height, cfg.Width = size.Height, size.Width
	ps := &cfg.PanAndScan
	ps.Enabled = hfconfig.Bool(pre.DoPanAndScan, false)
	if ps.MinCropSize, err = hfconfig.Int("pan_and_scan_min_crop_size", pre.MinCropSize, defaultMinCropSize); err != nil {
		return nil, err
	}
	if ps.MaxNumCrops, err = hfconfig.Int("pan_and_scan_max_num_crops", pre.MaxNumCrops, defaultMaxNumCrops); err != nil {
		return nil, err
	}
	ps.MinRatioToActivate = defaultMinRatio
	if pre.MinRatio != nil {
		ps.MinRatioToActivate = *pre.MinRatio
	}
	if cfg.ImageSeqLength, err = hfconfig.Int("image_seq_length", proc.ImageSeqLength, defaultSeqLength); err != nil {
		return nil, err
	}
	cfg.Tokens = Tokens{
		BOI:   hfconfig.First(tok.BOI, tok.Extra["boi_token"], "<start_of_image>"),
		EOI:   hfconfig.First(tok.EOI, tok.Extra["eoi_token"], "<end_of_image>"),
		Image: hfconfig.First(tok.Image, tok.Extra["image_token"], "<image_soft_token>"),
	}
	for _, f := range []struct {
		name string
		v    *float64
		dst  *int
	}{{"boi_token_index", model.BOIID, &cfg.Tokens.BOIID}, {"eoi_token_index", model.EOIID, &cfg.Tokens.EOIID},
		{"image_token_index", model.ImageID, &cfg.Tokens.ImageID}} {
		if *f.dst, err = hfconfig.Int(f.name, f.v, -1); err != nil {
			return nil, err
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// NormParams are the rescale and normalize settings (planar.Settings).
func (c *Config) NormParams() norm.Params { return c.Norm }

// Validate checks that the configuration describes a processor this
// package implements (sizes, pan-and-scan values that do not divide by
// zero, table parameters).
func (c *Config) Validate() error {
	if c == nil {
		return fmt.Errorf("gemma3: nil config: %w", vision.ErrBadOptions)
	}
	if c.Height < 1 || c.Width < 1 || c.Height > maxSide || c.Width > maxSide {
		return fmt.Errorf("gemma3: size %dx%d: %w", c.Width, c.Height, vision.ErrBadOptions)
	}
	if c.Resample < resample.Nearest || c.Resample > resample.Hamming {
		return fmt.Errorf("gemma3: resample %d: %w", c.Resample, vision.ErrUnsupported)
	}
	if !c.Norm.Valid() {
		return fmt.Errorf("gemma3: rescale/normalize %+v: %w", c.Norm, vision.ErrBadOptions)
	}
	ps := c.PanAndScan
	if ps.MinCropSize < 1 || ps.MaxNumCrops < 1 || ps.MaxNumCrops > 64 ||
		math.IsNaN(ps.MinRatioToActivate) || math.IsInf(ps.MinRatioToActivate, 0) {
		return fmt.Errorf("gemma3: pan-and-scan %+v: %w", ps, vision.ErrBadOptions)
	}
	if c.ImageSeqLength < 1 {
		return fmt.Errorf("gemma3: image_seq_length %d: %w", c.ImageSeqLength, vision.ErrBadOptions)
	}
	if c.Tokens.BOI == "" || c.Tokens.EOI == "" || c.Tokens.Image == "" {
		return fmt.Errorf("gemma3: empty special token in %+v: %w", c.Tokens, vision.ErrBadOptions)
	}
	return nil
}
