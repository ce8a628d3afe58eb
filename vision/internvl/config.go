package internvl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/mmgate/mmgate/vision"
)

// ModelType is the config.json model_type this package serves.
const ModelType = "internvl"

// Class defaults of GotOcr2ImageProcessorPil and InternVLProcessor, used
// where a file is silent or says null.
var (
	clipMean = [3]float64{0.48145466, 0.4578275, 0.40821073}
	clipStd  = [3]float64{0.26862954, 0.26130258, 0.27577711}
)

const (
	defaultTile      = 384 // GotOcr2 size {"height": 384, "width": 384}
	defaultMinTiles  = 1
	defaultMaxTiles  = 12
	defaultSeqLength = 256 // InternVLProcessor image_seq_length
	pillowBicubic    = 3

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
// silent (tiles of 384, CLIP mean/std): GotOcr2ImageProcessorPil's and
// InternVLProcessor's defaults.
func DefaultConfig() Config {
	return Config{
		ModelType: ModelType, TileWidth: defaultTile, TileHeight: defaultTile,
		MinTiles: defaultMinTiles, MaxTiles: defaultMaxTiles, Resample: pillowBicubic,
		DoResize: true, DoRescale: true, DoNormalize: true, RescaleFactor: 1.0 / 255.0,
		ImageMean: clipMean, ImageStd: clipStd, ImageSeqLength: defaultSeqLength,
		StartToken: "<img>", ContextToken: "<IMG_CONTEXT>", EndToken: "</img>",
	}
}

// rawImageConfig is preprocessor_config.json; pointers tell absent or null
// from a value.
type rawImageConfig struct {
	Size          json.RawMessage `json:"size"`
	MinPatches    *float64        `json:"min_patches"`
	MaxPatches    *float64        `json:"max_patches"`
	Resample      *float64        `json:"resample"`
	DoResize      *bool           `json:"do_resize"`
	DoRescale     *bool           `json:"do_rescale"`
	DoNormalize   *bool           `json:"do_normalize"`
	RescaleFactor *float64        `json:"rescale_factor"`
	ImageMean     json.RawMessage `json:"image_mean"`
	ImageStd      json.RawMessage `json:"image_std"`
}

func unmarshalOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

func isNull(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// whole converts a JSON number that must be a non-negative integer.
func whole(name string, v *float64, def int) (int, error) {
	if v == nil {
		return def, nil
	}
	if f := *v; f >= 0 && f <= 1<<30 && f == math.Trunc(f) {
		return int(f), nil
	}
	return 0, fmt.Errorf("%s = %v: want a non-negative integer: %w", name, *v, vision.ErrBadOptions)
}

// triple reads image_mean / image_std: one number, or a list of one or
// three.
func triple(name string, raw json.RawMessage, def [3]float64) ([3]float64, error) {
	if isNull(raw) {
		return def, nil
	}
	var list []float64
	if err := json.Unmarshal(raw, &list); err != nil {
		var one float64
		if json.Unmarshal(raw, &one) != nil {
			return def, fmt.Errorf("%s: %v: %w", name, err, vision.ErrBadOptions)
		}
		list = []float64{one}
	}
	switch len(list) {
	case 1:
		return [3]float64{list[0], list[0], list[0]}, nil
	case 3:
		return [3]float64(list), nil
	}
	return def, fmt.Errorf("%s has %d values, want 1 or 3: %w", name, len(list), vision.ErrBadOptions)
}

// tileSize reads size: {"height": h, "width": w} or one number (square, as
// get_size_dict with default_to_square). Other spellings leave the tile
// without a height or width, which the tiling code cannot use.
func tileSize(raw json.RawMessage) (w, h int, err error) {
	if isNull(raw) {
		return defaultTile, defaultTile, nil
	}
	var one float64
	if json.Unmarshal(raw, &one) == nil {
		s, err := whole("size", &one, 0)
		return s, s, err
	}
	var d struct {
		Height *float64 `json:"height"`
		Width  *float64 `json:"width"`
	}
	if err := json.Unmarshal(raw, &d); err != nil || d.Height == nil || d.Width == nil {
		return 0, 0, fmt.Errorf("size %s: want {\"height\": h, \"width\": w}: %w", raw, vision.ErrBadOptions)
	}
	if h, err = whole("size.height", d.Height, 0); err != nil {
		return 0, 0, err
	}
	w, err = whole("size.width", d.Width, 0)
	return w, h, err
}

// ParseImageConfig applies preprocessor_config.json to c. crop_to_patches
// is not read: InternVLProcessor always passes true.
func (c *Config) ParseImageConfig(data []byte) error {
	var r rawImageConfig
	if err := unmarshalOne(data, &r); err != nil {
		return fmt.Errorf("internvl: preprocessor config: %v: %w", err, vision.ErrBadOptions)
	}
	var err error
	if c.TileWidth, c.TileHeight, err = tileSize(r.Size); err != nil {
		return fmt.Errorf("internvl: preprocessor config: %w", err)
	}
	ints := []struct {
		name string
		v    *float64
		def  int
		dst  *int
	}{
		{"min_patches", r.MinPatches, defaultMinTiles, &c.MinTiles},
		{"max_patches", r.MaxPatches, defaultMaxTiles, &c.MaxTiles},
		{"resample", r.Resample, pillowBicubic, &c.Resample},
	}
	for _, f := range ints {
		if *f.dst, err = whole(f.name, f.v, f.def); err != nil {
			return fmt.Errorf("internvl: preprocessor config: %w", err)
		}
	}
	if c.ImageMean, err = triple("image_mean", r.ImageMean, clipMean); err != nil {
		return fmt.Errorf("internvl: preprocessor config: %w", err)
	}
	if c.ImageStd, err = triple("image_std", r.ImageStd, clipStd); err != nil {
		return fmt.Errorf("internvl: preprocessor config: %w", err)
	}
	c.DoResize = r.DoResize == nil || *r.DoResize
	c.DoRescale = r.DoRescale == nil || *r.DoRescale
	c.DoNormalize = r.DoNormalize == nil || *r.DoNormalize
	c.RescaleFactor = 1.0 / 255.0
	if r.RescaleFactor != nil {
		c.RescaleFactor = *r.RescaleFactor
	}
	return nil
}

// ParseProcessorConfig applies processor_config.json (image_seq_length).
func (c *Config) ParseProcessorConfig(data []byte) error {
	var r struct {
		ImageSeqLength *float64 `json:"image_seq_length"`
	}
	if err := unmarshalOne(data, &r); err != nil {
		return fmt.Errorf("internvl: processor config: %v: %w", err, vision.ErrBadOptions)
	}
	n, err := whole("image_seq_length", r.ImageSeqLength, defaultSeqLength)
	if err != nil {
		return fmt.Errorf("internvl: processor config: %w", err)
	}
	c.ImageSeqLength = n
	return nil
}

// ParseTokenizerConfig takes the image token texts from
// tokenizer_config.json's extra_special_tokens (start_image_token,
// end_image_token, context_image_token), which InternVLProcessor reads from
// the tokenizer. Absent names keep their current text.
func (c *Config) ParseTokenizerConfig(data []byte) error {
	var r struct {
		Extra map[string]json.RawMessage `json:"extra_special_tokens"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("internvl: tokenizer config: %v: %w", err, vision.ErrBadOptions)
	}
	for name, dst := range map[string]*string{
		"start_image_token": &c.StartToken, "end_image_token": &c.EndToken, "context_image_token": &c.ContextToken,
	} {
		raw, ok := r.Extra[name]
		if !ok || isNull(raw) {
			continue
		}
		if err := json.Unmarshal(raw, dst); err != nil || *dst == "" {
			return fmt.Errorf("internvl: tokenizer config: %s: want a non-empty string: %w", name, vision.ErrBadOptions)
		}
	}
	return nil
}

// readOptional returns a file's bytes, or nil when it does not exist.
func readOptional(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// LoadConfig reads a model folder: config.json (model_type, required),
// preprocessor_config.json (required), and processor_config.json and
// tokenizer_config.json when present.
func LoadConfig(dir string) (*Config, error) {
	c := DefaultConfig()
	c.ModelType = ""
	steps := []struct {
		file     string
		required bool
		apply    func([]byte) error
	}{
		{"config.json", true, c.parseModelConfig},
		{"preprocessor_config.json", true, c.ParseImageConfig},
		{"processor_config.json", false, c.ParseProcessorConfig},
		{"tokenizer_config.json", false, c.ParseTokenizerConfig},
	}
	for _, s := range steps {
		data, err := readOptional(filepath.Join(dir, s.file))
		if err == nil && data == nil && s.required {
			err = fs.ErrNotExist
		}
		if err != nil {
			return nil, fmt.Errorf("internvl: load %s: %s: %v: %w", dir, s.file, err, vision.ErrBadOptions)
		}
		if data == nil {
			continue
		}
		if err := s.apply(data); err != nil {
			return nil, fmt.Errorf("internvl: load %s: %w", dir, err)
		}
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("internvl: load %s: %w", dir, err)
	}
	return &c, nil
}

func (c *Config) parseModelConfig(data []byte) error {
	var r struct {
		ModelType string `json:"model_type"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("internvl: config.json: %v: %w", err, vision.ErrBadOptions)
	}
	c.ModelType = r.ModelType
	return nil
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
	if c.Resample < 0 || c.Resample > 5 {
		return fmt.Errorf("internvl: resample %d: %w", c.Resample, vision.ErrUnsupported)
	}
	for i := range 3 {
		if c.DoNormalize && (c.ImageStd[i] == 0 || math.IsNaN(c.ImageStd[i]) || math.IsNaN(c.ImageMean[i])) {
			return fmt.Errorf("internvl: image_mean %v, image_std %v: %w", c.ImageMean, c.ImageStd, vision.ErrBadOptions)
		}
	}
	if c.DoRescale && (c.RescaleFactor == 0 || math.IsNaN(c.RescaleFactor) || math.IsInf(c.RescaleFactor, 0)) {
		return fmt.Errorf("internvl: rescale_factor %v: %w", c.RescaleFactor, vision.ErrBadOptions)
	}
	if c.StartToken == "" || c.ContextToken == "" || c.EndToken == "" {
		return fmt.Errorf("internvl: empty image token text: %w", vision.ErrBadOptions)
	}
	return nil
}
