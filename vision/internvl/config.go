package internvl

import (
	"encoding/json"
	"fmt"

	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/hfconfig"
	"github.com/mmgate/mmgate/vision/norm"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

// ModelType is the config.json model_type this package serves.
const ModelType = "internvl"

// Class defaults of GotOcr2ImageProcessorPil and InternVLProcessor, used
// where a file is silent or says null. The rest (CLIP mean/std, rescale
// 1/255, bicubic, every step on) are Qwen2-VL's too, and come from
// qwenvl.ParseImageConfig.
const (
	defaultTile      = 384 // size {"height": 384, "width": 384}
	defaultMinTiles  = 1
	defaultMaxTiles  = 12
	defaultSeqLength = 256 // InternVLProcessor image_seq_length

	// maxTileSide and maxTilesLimit bound what a configuration may ask for,
	// so that no plan arithmetic can overflow.
	maxTileSide   = 4096
	maxTilesLimit = 256
)

// Config is the processor configuration of one InternVL checkpoint.
type Config struct {
	ModelType string

	TileWidth, TileHeight int // size.width / size.height: one tile
	MinTiles, MaxTiles    int // min_patches / max_patches
	Resample              int // Pillow filter code (3 = bicubic)
	DoResize              bool
	DoRescale             bool
	DoNormalize           bool
	RescaleFactor         float64
	ImageMean, ImageStd   [3]float64

	// ImageSeqLength is the number of <IMG_CONTEXT> tokens per tile
	// (processor_config.json image_seq_length).
	ImageSeqLength int

	// Token texts from tokenizer_config.json's extra_special_tokens.
	StartToken, ContextToken, EndToken string
}

// DefaultConfig is the configuration the classes give when every file is
// silent (tiles of 384, CLIP mean/std).
func DefaultConfig() Config {
	c := Config{
		ModelType: ModelType, TileWidth: defaultTile, TileHeight: defaultTile,
		MinTiles: defaultMinTiles, MaxTiles: defaultMaxTiles, ImageSeqLength: defaultSeqLength,
		StartToken: "<img>", ContextToken: "<IMG_CONTEXT>", EndToken: "</img>",
	}
	if err := c.ParseImageConfig([]byte(`{}`)); err != nil {
		panic(err) // the class defaults always parse
	}
	return c
}

// tileSize reads size: {"height": h, "width": w} or one number (a square,
// as get_size_dict with default_to_square). Other spellings leave the tile
// without a height or a width, which tiling cannot use.
func tileSize(raw json.RawMessage) (w, h int, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return defaultTile, defaultTile, nil
	}
	var side int
	if json.Unmarshal(raw, &side) == nil {
		return side, side, nil
	}
	var d struct {
		Height *int `json:"height"`
		Width  *int `json:"width"`
	}
	if err := json.Unmarshal(raw, &d); err != nil || d.Height == nil || d.Width == nil {
		return 0, 0, fmt.Errorf("size %s: want {\"height\": h, \"width\": w}: %w", raw, vision.ErrBadOptions)
	}
	return *d.Width, *d.Height, nil
}

// ParseImageConfig applies preprocessor_config.json to c. crop_to_patches
// is not read: InternVLProcessor always passes true.
func (c *Config) ParseImageConfig(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return fmt.Errorf("internvl: preprocessor config: not a JSON object (%v): %w", err, vision.ErrBadOptions)
	}
	var own struct {
		MinPatches *int `json:"min_patches"`
		MaxPatches *int `json:"max_patches"`
	}
	if err := json.Unmarshal(data, &own); err != nil {
		return fmt.Errorf("internvl: preprocessor config: %v: %w", err, vision.ErrBadOptions)
	}
	w, h, err := tileSize(fields["size"])
	if err != nil {
		return fmt.Errorf("internvl: preprocessor config: %w", err)
	}
	// GOT-OCR2's size is a tile, which Qwen2-VL's parser does not read.
	delete(fields, "size")
	rest, err := json.Marshal(fields)
	if err != nil {
		return fmt.Errorf("internvl: preprocessor config: %v: %w", err, vision.ErrBadOptions)
	}
	q, err := qwenvl.ParseImageConfig(rest, "")
	if err != nil {
		return fmt.Errorf("internvl: preprocessor config: %w", err)
	}
	c.TileWidth, c.TileHeight = w, h
	c.MinTiles, c.MaxTiles = defaultMinTiles, defaultMaxTiles
	if own.MinPatches != nil {
		c.MinTiles = *own.MinPatches
	}
	if own.MaxPatches != nil {
		c.MaxTiles = *own.MaxPatches
	}
	c.Resample, c.RescaleFactor, c.ImageMean, c.ImageStd = q.Resample, q.RescaleFactor, q.ImageMean, q.ImageStd
	c.DoResize, c.DoRescale, c.DoNormalize = q.DoResize, q.DoRescale, q.DoNormalize
	return nil
}

// ParseProcessorConfig applies processor_config.json (image_seq_length).
func (c *Config) ParseProcessorConfig(data []byte) error {
	var r struct {
		ImageSeqLength *int `json:"image_seq_length"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("internvl: processor config: %v: %w", err, vision.ErrBadOptions)
	}
	if r.ImageSeqLength != nil {
		c.ImageSeqLength = *r.ImageSeqLength
	}
	return nil
}

// ParseTokenizerConfig takes the image token texts from
// tokenizer_config.json's extra_special_tokens (start_image_token,
// end_image_token, context_image_token), which InternVLProcessor reads from
// the tokenizer. Absent names keep their current text.
func (c *Config) ParseTokenizerConfig(data []byte) error {
	err := hfconfig.ExtraTokens(data, map[string]*string{
		"start_image_token": &c.StartToken, "end_image_token": &c.EndToken, "context_image_token": &c.ContextToken,
	})
	if err != nil {
		return fmt.Errorf("internvl: tokenizer config: %w", err)
	}
	return nil
}

// LoadConfig reads a model folder: config.json (model_type) and
// preprocessor_config.json are required; processor_config.json and
// tokenizer_config.json are read when present.
func LoadConfig(dir string) (*Config, error) {
	c := DefaultConfig()
	modelType := func(data []byte) (err error) {
		c.ModelType, err = hfconfig.ModelType(data)
		return err
	}
	err := hfconfig.Read(dir,
		hfconfig.File{Name: "config.json", Required: true, Apply: modelType},
		hfconfig.File{Name: "preprocessor_config.json", Required: true, Apply: c.ParseImageConfig},
		hfconfig.File{Name: "processor_config.json", Apply: c.ParseProcessorConfig},
		hfconfig.File{Name: "tokenizer_config.json", Apply: c.ParseTokenizerConfig},
	)
	if err == nil {
		err = c.Validate()
	}
	if err != nil {
		return nil, fmt.Errorf("internvl: load %s: %w", dir, err)
	}
	return &c, nil
}

// NormParams are the rescale and normalize settings.
func (c *Config) NormParams() norm.Params {
	return norm.Params{Rescale: c.RescaleFactor, Mean: c.ImageMean, Std: c.ImageStd, DoRescale: c.DoRescale, DoNormalize: c.DoNormalize}
}

// Validate checks that the configuration describes a processor this package
// implements.
func (c *Config) Validate() error {
	switch c.ModelType {
	case ModelType:
	case "":
		return fmt.Errorf("internvl: no model type: %w", vision.ErrBadOptions)
	default:
		return fmt.Errorf("internvl: model type %q: %w", c.ModelType, vision.ErrUnsupported)
	}
	if c.TileWidth < 1 || c.TileHeight < 1 || c.TileWidth > maxTileSide || c.TileHeight > maxTileSide {
		return fmt.Errorf("internvl: tile %dx%d: %w", c.TileWidth, c.TileHeight, vision.ErrBadOptions)
	}
	if c.MinTiles < 0 || c.MaxTiles < 0 || c.MaxTiles > maxTilesLimit {
		return fmt.Errorf("internvl: min_patches %d, max_patches %d (at most %d): %w", c.MinTiles, c.MaxTiles, maxTilesLimit, vision.ErrBadOptions)
	}
	if c.ImageSeqLength < 1 || c.ImageSeqLength > 1<<16 {
		return fmt.Errorf("internvl: image_seq_length %d: %w", c.ImageSeqLength, vision.ErrBadOptions)
	}
	if c.StartToken == "" || c.ContextToken == "" || c.EndToken == "" {
		return fmt.Errorf("internvl: empty image token text: %w", vision.ErrBadOptions)
	}
	// The pixel settings are Qwen2-VL's; so is their validation.
	q := qwenvl.Config{ModelType: qwenvl.ModelQwen2VL, PatchSize: 1, TemporalPatchSize: 1, MergeSize: 1, MaxPixels: 1,
		ImageMean: c.ImageMean, ImageStd: c.ImageStd, RescaleFactor: c.RescaleFactor, Resample: c.Resample,
		DoRescale: c.DoRescale, DoNormalize: c.DoNormalize}
	if err := q.Validate(); err != nil {
		return fmt.Errorf("internvl: %w", err)
	}
	return nil
}
