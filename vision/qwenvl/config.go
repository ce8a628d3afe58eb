package qwenvl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmgate/mmgate/vision"
)

// Model types (config.json model_type) this package serves.
const (
	ModelQwen2VL     = "qwen2_vl"
	ModelQwen25VL    = "qwen2_5_vl"
	ModelQwen3VL     = "qwen3_vl"
	ModelQwen3VLMoE  = "qwen3_vl_moe"
	defaultRescale   = 1.0 / 255.0
	pillowBicubic    = 3
	classMinPixels   = 56 * 56        // image processor default when the file is silent
	classMaxPixels   = 28 * 28 * 1280 // likewise
	videoClassMinPix = 128 * 32 * 32  // Qwen3VLVideoProcessor default
	videoClassMaxPix = 32 * 32 * 768  // likewise
)

// OpenAI CLIP normalization constants (the Qwen2-VL / Qwen2.5-VL defaults).
var (
	clipMean = [3]float64{0.48145466, 0.4578275, 0.40821073}
	clipStd  = [3]float64{0.26862954, 0.26130258, 0.27577711}
)

// Config is an image processor configuration (preprocessor_config.json) plus
// the model type and, when present, the video processor configuration.
type Config struct {
	ModelType         string
	PatchSize         int
	TemporalPatchSize int
	MergeSize         int
	MinPixels         int // size.shortest_edge / min_pixels: a pixel count, not an edge
	MaxPixels         int // size.longest_edge / max_pixels
	ImageMean         [3]float64
	ImageStd          [3]float64
	RescaleFactor     float64
	Resample          int // Pillow resampling code (3 = BICUBIC)
	DoResize          bool
	DoRescale         bool
	DoNormalize       bool
	DoConvertRGB      bool

	// Video is video_preprocessor_config.json, or nil when the model folder
	// has none.
	Video *VideoConfig
}

// VideoConfig is a video processor configuration
// (video_preprocessor_config.json). MinPixels/MaxPixels bound T·H·W for
// Qwen3-VL.
type VideoConfig struct {
	PatchSize         int
	TemporalPatchSize int
	MergeSize         int
	MinPixels         int
	MaxPixels         int
	ImageMean         [3]float64
	ImageStd          [3]float64
	RescaleFactor     float64
	Resample          int
	DoResize          bool
	DoRescale         bool
	DoNormalize       bool
	DoConvertRGB      bool
	FPS               float64
	MinFrames         int
	MaxFrames         int
	DoSampleFrames    bool
}

// Factor is patch_size·merge_size, the granularity of resized sides.
func (c Config) Factor() int { return c.PatchSize * c.MergeSize }

// Preset names accepted by Load and PresetConfig.
var presetNames = []string{"qwen2-vl", "qwen2.5-vl", "qwen3-vl"}

// Presets lists the built-in preset names.
func Presets() []string { return append([]string(nil), presetNames...) }

// PresetConfig returns the published Hub configuration of a preset
// ("qwen2-vl", "qwen2.5-vl", "qwen3-vl"), or an error wrapping
// vision.ErrUnsupported.
func PresetConfig(name string) (*Config, error) {
	base := Config{
		PatchSize: 14, TemporalPatchSize: 2, MergeSize: 2,
		MinPixels: 3136, MaxPixels: 12845056,
		ImageMean: clipMean, ImageStd: clipStd,
		RescaleFactor: defaultRescale, Resample: pillowBicubic,
		DoResize: true, DoRescale: true, DoNormalize: true, DoConvertRGB: true,
	}
	switch name {
	case "qwen2-vl":
		base.ModelType = ModelQwen2VL
	case "qwen2.5-vl":
		base.ModelType = ModelQwen25VL
	case "qwen3-vl":
		base.ModelType = ModelQwen3VL
		base.PatchSize = 16
		base.MinPixels, base.MaxPixels = 65536, 16777216
		base.ImageMean = [3]float64{0.5, 0.5, 0.5}
		base.ImageStd = [3]float64{0.5, 0.5, 0.5}
		base.Video = &VideoConfig{
			PatchSize: 16, TemporalPatchSize: 2, MergeSize: 2,
			MinPixels: 4096, MaxPixels: 25165824,
			ImageMean: base.ImageMean, ImageStd: base.ImageStd,
			RescaleFactor: defaultRescale, Resample: pillowBicubic,
			DoResize: true, DoRescale: true, DoNormalize: true, DoConvertRGB: true,
			FPS: 2, MinFrames: 4, MaxFrames: 768, DoSampleFrames: true,
		}
	default:
		return nil, fmt.Errorf("qwenvl: preset %q: %w", name, vision.ErrUnsupported)
	}
	return &base, nil
}

// rawProcessorConfig is the JSON shape shared by preprocessor_config.json and
// video_preprocessor_config.json. Pointers tell "absent" from zero.
type rawProcessorConfig struct {
	MinPixels         *float64        `json:"min_pixels"`
	MaxPixels         *float64        `json:"max_pixels"`
	Size              *rawSize        `json:"size"`
	PatchSize         *float64        `json:"patch_size"`
	TemporalPatchSize *float64        `json:"temporal_patch_size"`
	MergeSize         *float64        `json:"merge_size"`
	ImageMean         json.RawMessage `json:"image_mean"`
	ImageStd          json.RawMessage `json:"image_std"`
	RescaleFactor     *float64        `json:"rescale_factor"`
	Resample          *float64        `json:"resample"`
	DoResize          *bool           `json:"do_resize"`
	DoRescale         *bool           `json:"do_rescale"`
	DoNormalize       *bool           `json:"do_normalize"`
	DoConvertRGB      *bool           `json:"do_convert_rgb"`
	ProcessorClass    string          `json:"processor_class"`
	FPS               *float64        `json:"fps"`
	MinFrames         *float64        `json:"min_frames"`
	MaxFrames         *float64        `json:"max_frames"`
	DoSampleFrames    *bool           `json:"do_sample_frames"`
}

type rawSize struct {
	ShortestEdge *float64 `json:"shortest_edge"`
	LongestEdge  *float64 `json:"longest_edge"`
}

// common holds the fields both configuration files share.
type common struct {
	patch, temporal, merge, minPx, maxPx int
	mean, std                            [3]float64
	rescale                              float64
	resample                             int
	doResize, doRescale, doNormalize     bool
	doConvertRGB                         bool
}

func intField(name string, v *float64, def int) (int, error) {
	if v == nil {
		return def, nil
	}
	f := *v
	if f != math.Trunc(f) || f < 0 || f > 1<<40 {
		return 0, fmt.Errorf("%s = %v: not a non-negative integer: %w", name, f, vision.ErrBadOptions)
	}
	return int(f), nil
}

func boolField(v *bool, def bool) bool {
	if v == nil {
		return def
	}
	return *v
}

// meanStd parses a list of three numbers, a list of one, or a single number.
func meanStd(name string, raw json.RawMessage, def [3]float64) ([3]float64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return def, nil
	}
	var one float64
	if err := json.Unmarshal(raw, &one); err == nil {
		return [3]float64{one, one, one}, nil
	}
	var list []float64
	if err := json.Unmarshal(raw, &list); err != nil {
		return def, fmt.Errorf("%s: %v: %w", name, err, vision.ErrBadOptions)
	}
	switch len(list) {
	case 1:
		return [3]float64{list[0], list[0], list[0]}, nil
	case 3:
		return [3]float64{list[0], list[1], list[2]}, nil
	}
	return def, fmt.Errorf("%s: %d values, want 1 or 3: %w", name, len(list), vision.ErrBadOptions)
}

func (r *rawProcessorConfig) common(defMin, defMax int, defMean, defStd [3]float64) (common, error) {
	var c common
	var err error
	if c.patch, err = intField("patch_size", r.PatchSize, 14); err != nil {
		return c, err
	}
	if c.temporal, err = intField("temporal_patch_size", r.TemporalPatchSize, 2); err != nil {
		return c, err
	}
	if c.merge, err = intField("merge_size", r.MergeSize, 2); err != nil {
		return c, err
	}
	// min_pixels / max_pixels win over size, as in transformers' __init__.
	minSrc, maxSrc := r.MinPixels, r.MaxPixels
	if r.Size != nil {
		if minSrc == nil {
			minSrc = r.Size.ShortestEdge
		}
		if maxSrc == nil {
			maxSrc = r.Size.LongestEdge
		}
	}
	if c.minPx, err = intField("min_pixels", minSrc, defMin); err != nil {
		return c, err
	}
	if c.maxPx, err = intField("max_pixels", maxSrc, defMax); err != nil {
		return c, err
	}
	if c.mean, err = meanStd("image_mean", r.ImageMean, defMean); err != nil {
		return c, err
	}
	if c.std, err = meanStd("image_std", r.ImageStd, defStd); err != nil {
		return c, err
	}
	c.rescale = defaultRescale
	if r.RescaleFactor != nil {
		c.rescale = *r.RescaleFactor
	}
	if c.resample, err = intField("resample", r.Resample, pillowBicubic); err != nil {
		return c, err
	}
	c.doResize = boolField(r.DoResize, true)
	c.doRescale = boolField(r.DoRescale, true)
	c.doNormalize = boolField(r.DoNormalize, true)
	c.doConvertRGB = boolField(r.DoConvertRGB, true)
	return c, nil
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// ParseImageConfig parses preprocessor_config.json. Absent fields take the
// transformers class defaults (CLIP mean/std, 3136 / 1003520 pixels, patch
// 14). modelType is stored as is.
func ParseImageConfig(data []byte, modelType string) (*Config, error) {
	var r rawProcessorConfig
	if err := decodeStrict(data, &r); err != nil {
		return nil, fmt.Errorf("qwenvl: preprocessor config: %v: %w", err, vision.ErrBadOptions)
	}
	c, err := r.common(classMinPixels, classMaxPixels, clipMean, clipStd)
	if err != nil {
		return nil, fmt.Errorf("qwenvl: preprocessor config: %w", err)
	}
	cfg := &Config{
		ModelType: modelType, PatchSize: c.patch, TemporalPatchSize: c.temporal, MergeSize: c.merge,
		MinPixels: c.minPx, MaxPixels: c.maxPx, ImageMean: c.mean, ImageStd: c.std,
		RescaleFactor: c.rescale, Resample: c.resample,
		DoResize: c.doResize, DoRescale: c.doRescale, DoNormalize: c.doNormalize, DoConvertRGB: c.doConvertRGB,
	}
	return cfg, nil
}

// ParseVideoConfig parses video_preprocessor_config.json, with the
// Qwen3VLVideoProcessor class defaults for absent fields.
func ParseVideoConfig(data []byte) (*VideoConfig, error) {
	var r rawProcessorConfig
	if err := decodeStrict(data, &r); err != nil {
		return nil, fmt.Errorf("qwenvl: video preprocessor config: %v: %w", err, vision.ErrBadOptions)
	}
	half := [3]float64{0.5, 0.5, 0.5}
	c, err := r.common(videoClassMinPix, videoClassMaxPix, half, half)
	if err != nil {
		return nil, fmt.Errorf("qwenvl: video preprocessor config: %w", err)
	}
	v := &VideoConfig{
		PatchSize: c.patch, TemporalPatchSize: c.temporal, MergeSize: c.merge,
		MinPixels: c.minPx, MaxPixels: c.maxPx, ImageMean: c.mean, ImageStd: c.std,
		RescaleFactor: c.rescale, Resample: c.resample,
		DoResize: c.doResize, DoRescale: c.doRescale, DoNormalize: c.doNormalize, DoConvertRGB: c.doConvertRGB,
		FPS: 2, MinFrames: 4, MaxFrames: 768, DoSampleFrames: boolField(r.DoSampleFrames, false),
	}
	if r.FPS != nil {
		v.FPS = *r.FPS
	}
	if v.MinFrames, err = intField("min_frames", r.MinFrames, 4); err != nil {
		return nil, fmt.Errorf("qwenvl: video preprocessor config: %w", err)
	}
	if v.MaxFrames, err = intField("max_frames", r.MaxFrames, 768); err != nil {
		return nil, fmt.Errorf("qwenvl: video preprocessor config: %w", err)
	}
	return v, nil
}

// modelTypeFromClass infers the model type from a processor_class when a
// folder has no config.json.
func modelTypeFromClass(class string) string {
	switch class {
	case "Qwen2VLProcessor":
		return ModelQwen2VL
	case "Qwen2_5_VLProcessor":
		return ModelQwen25VL
	case "Qwen3VLProcessor":
		return ModelQwen3VL
	}
	return ""
}

// LoadConfig reads a model folder: preprocessor_config.json (required),
// video_preprocessor_config.json (optional) and config.json's model_type
// (falling back to processor_class when config.json is absent).
func LoadConfig(dir string) (*Config, error) {
	data, err := os.ReadFile(filepath.Join(dir, "preprocessor_config.json"))
	if err != nil {
		return nil, fmt.Errorf("qwenvl: load %s: %v: %w", dir, err, vision.ErrBadOptions)
	}
	modelType := ""
	if cdata, err := os.ReadFile(filepath.Join(dir, "config.json")); err == nil {
		var mc struct {
			ModelType string `json:"model_type"`
		}
		if err := json.Unmarshal(cdata, &mc); err != nil {
			return nil, fmt.Errorf("qwenvl: load %s: config.json: %v: %w", dir, err, vision.ErrBadOptions)
		}
		modelType = mc.ModelType
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("qwenvl: load %s: %v: %w", dir, err, vision.ErrBadOptions)
	}
	if modelType == "" {
		var pc struct {
			ProcessorClass string `json:"processor_class"`
		}
		_ = json.Unmarshal(data, &pc)
		modelType = modelTypeFromClass(pc.ProcessorClass)
	}
	return loadFolder(dir, data, modelType)
}

// LoadFolder reads a model folder's preprocessor_config.json (required) and
// video_preprocessor_config.json (optional) for a model type the caller has
// already decided (a family registry matched config.json); config.json is
// not read.
func LoadFolder(dir, modelType string) (*Config, error) {
	data, err := os.ReadFile(filepath.Join(dir, "preprocessor_config.json"))
	if err != nil {
		return nil, fmt.Errorf("qwenvl: load %s: %v: %w", dir, err, vision.ErrBadOptions)
	}
	return loadFolder(dir, data, modelType)
}

// loadFolder parses the image configuration data and the folder's optional
// video configuration, and validates the result.
func loadFolder(dir string, data []byte, modelType string) (*Config, error) {
	cfg, err := ParseImageConfig(data, modelType)
	if err != nil {
		return nil, fmt.Errorf("qwenvl: load %s: %w", dir, err)
	}
	vdata, err := os.ReadFile(filepath.Join(dir, "video_preprocessor_config.json"))
	switch {
	case err == nil:
		if cfg.Video, err = ParseVideoConfig(vdata); err != nil {
			return nil, fmt.Errorf("qwenvl: load %s: %w", dir, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("qwenvl: load %s: %v: %w", dir, err, vision.ErrBadOptions)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("qwenvl: load %s: %w", dir, err)
	}
	return cfg, nil
}

// Validate checks that the configuration describes a processor this package
// implements.
func (c *Config) Validate() error {
	switch c.ModelType {
	case ModelQwen2VL, ModelQwen25VL, ModelQwen3VL, ModelQwen3VLMoE:
	case "":
		return fmt.Errorf("qwenvl: no model type: %w", vision.ErrBadOptions)
	default:
		return fmt.Errorf("qwenvl: model type %q: %w", c.ModelType, vision.ErrUnsupported)
	}
	if c.PatchSize < 1 || c.PatchSize > 64 || c.MergeSize < 1 || c.MergeSize > 16 ||
		c.TemporalPatchSize < 1 || c.TemporalPatchSize > 16 {
		return fmt.Errorf("qwenvl: patch %d, merge %d, temporal patch %d: %w",
			c.PatchSize, c.MergeSize, c.TemporalPatchSize, vision.ErrBadOptions)
	}
	if c.MaxPixels < 1 {
		return fmt.Errorf("qwenvl: max_pixels %d: %w", c.MaxPixels, vision.ErrBadOptions)
	}
	for i := range 3 {
		if c.DoNormalize && (c.ImageStd[i] == 0 || math.IsNaN(c.ImageStd[i]) || math.IsNaN(c.ImageMean[i])) {
			return fmt.Errorf("qwenvl: image_std %v / image_mean %v: %w", c.ImageStd, c.ImageMean, vision.ErrBadOptions)
		}
	}
	if c.DoRescale && (c.RescaleFactor == 0 || math.IsNaN(c.RescaleFactor) || math.IsInf(c.RescaleFactor, 0)) {
		return fmt.Errorf("qwenvl: rescale_factor %v: %w", c.RescaleFactor, vision.ErrBadOptions)
	}
	if c.Resample < 0 || c.Resample > 5 {
		return fmt.Errorf("qwenvl: resample %d: %w", c.Resample, vision.ErrUnsupported)
	}
	return nil
}

// resolveConfig implements Load's lookup: a preset name wins over a folder
// of the same name.
func resolveConfig(presetOrDir string) (*Config, error) {
	for _, p := range presetNames {
		if strings.EqualFold(p, presetOrDir) {
			return PresetConfig(p)
		}
	}
	if fi, err := os.Stat(presetOrDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("qwenvl: %q is neither a preset (%s) nor a model folder: %w",
			presetOrDir, strings.Join(presetNames, ", "), vision.ErrUnsupported)
	}
	return LoadConfig(presetOrDir)
}
