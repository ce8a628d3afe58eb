package qwenvl

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/hfconfig"
	"github.com/mmgate/mmgate/vision/norm"
)

// Model types (config.json model_type) this package serves.
const (
	ModelQwen2VL     = "qwen2_vl"
	ModelQwen25VL    = "qwen2_5_vl"
	ModelQwen3VL     = "qwen3_vl"
	ModelQwen3VLMoE  = "qwen3_vl_moe"
	pillowBicubic    = 3
	classMinPixels   = 56 * 56        // image processor default when the file is silent
	classMaxPixels   = 28 * 28 * 1280 // likewise
	videoClassMinPix = 128 * 32 * 32  // Qwen3VLVideoProcessor default
	videoClassMaxPix = 32 * 32 * 768  // likewise
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
		RescaleFactor: norm.DefaultRescale, Resample: pillowBicubic,
		DoResize: true, DoRescale: true, DoNormalize: true, DoConvertRGB: true,
	}
	base.ImageMean, base.ImageStd = norm.OpenAICLIP()
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
			RescaleFactor: norm.DefaultRescale, Resample: pillowBicubic,
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

func (r *rawProcessorConfig) common(defMin, defMax int, defMean, defStd [3]float64) (common, error) {
	var c common
	var err error
	if c.patch, err = hfconfig.Int("patch_size", r.PatchSize, 14); err != nil {
		return c, err
	}
	if c.temporal, err = hfconfig.Int("temporal_patch_size", r.TemporalPatchSize, 2); err != nil {
		return c, err
	}
	if c.merge, err = hfconfig.Int("merge_size", r.MergeSize, 2); err != nil {
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
	if c.minPx, err = hfconfig.Int("min_pixels", minSrc, defMin); err != nil {
		return c, err
	}
	if c.maxPx, err = hfconfig.Int("max_pixels", maxSrc, defMax); err != nil {
		return c, err
	}
	if c.mean, err = hfconfig.MeanStd("image_mean", r.ImageMean, defMean); err != nil {
		return c, err
	}
	if c.std, err = hfconfig.MeanStd("image_std", r.ImageStd, defStd); err != nil {
		return c, err
	}
	c.rescale = norm.DefaultRescale
	if r.RescaleFactor != nil {
		c.rescale = *r.RescaleFactor
	}
	if c.resample, err = hfconfig.Int("resample", r.Resample, pillowBicubic); err != nil {
		return c, err
	}
	c.doResize = hfconfig.Bool(r.DoResize, true)
	c.doRescale = hfconfig.Bool(r.DoRescale, true)
	c.doNormalize = hfconfig.Bool(r.DoNormalize, true)
	c.doConvertRGB = hfconfig.Bool(r.DoConvertRGB, true)
	return c, nil
}

// ParseImageConfig parses preprocessor_config.json. Absent fields take the
// transformers class defaults (CLIP mean/std, 3136 / 1003520 pixels, patch
// 14). modelType is stored as is.
func ParseImageConfig(data []byte, modelType string) (*Config, error) {
	var r rawProcessorConfig
	if err := hfconfig.DecodeStrict(data, &r); err != nil {
		return nil, fmt.Errorf("qwenvl: preprocessor config: %v: %w", err, vision.ErrBadOptions)
	}
	clipMean, clipStd := norm.OpenAICLIP()
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
	if err := hfconfig.DecodeStrict(data, &r); err != nil {
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
		FPS: 2, MinFrames: 4, MaxFrames: 768, DoSampleFrames: hfconfig.Bool(r.DoSampleFrames, false),
	}
	if r.FPS != nil {
		v.FPS = *r.FPS
	}
	if v.MinFrames, err = hfconfig.Int("min_frames", r.MinFrames, 4); err != nil {
		return nil, fmt.Errorf("qwenvl: video preprocessor config: %w", err)
	}
	if v.MaxFrames, err = hfconfig.Int("max_frames", r.MaxFrames, 768); err != nil {
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
	modelType := ""
	err := hfconfig.Read(dir, hfconfig.File{Name: hfconfig.ModelFile, Apply: func(b []byte) (err error) {
		modelType, err = hfconfig.ModelType(b)
		return err
	}})
	if err != nil {
		return nil, fmt.Errorf("qwenvl: load %s: %w", dir, err)
	}
	return loadFolder(dir, modelType)
}

// LoadFolder reads a model folder's preprocessor_config.json (required) and
// video_preprocessor_config.json (optional) for a model type the caller has
// already decided (a family registry matched config.json); config.json is
// not read.
func LoadFolder(dir, modelType string) (*Config, error) { return loadFolder(dir, modelType) }

// loadFolder parses the folder's image configuration and optional video
// configuration for modelType ("" takes it from processor_class), and
// validates the result.
func loadFolder(dir, modelType string) (*Config, error) {
	var cfg *Config
	image := func(data []byte) (err error) {
		if modelType == "" {
			var pc struct {
				ProcessorClass string `json:"processor_class"`
			}
			_ = json.Unmarshal(data, &pc)
			modelType = modelTypeFromClass(pc.ProcessorClass)
		}
		cfg, err = ParseImageConfig(data, modelType)
		return err
	}
	video := func(data []byte) (err error) {
		cfg.Video, err = ParseVideoConfig(data)
		return err
	}
	err := hfconfig.Read(dir, hfconfig.File{Name: hfconfig.PreprocessorFile, Required: true, Apply: image},
		hfconfig.File{Name: hfconfig.VideoFile, Apply: video})
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		return nil, fmt.Errorf("qwenvl: load %s: %w", dir, err)
	}
	return cfg, nil
}

// NormParams are the rescale and normalize settings.
func (c *Config) NormParams() norm.Params {
	return norm.Params{Rescale: c.RescaleFactor, Mean: c.ImageMean, Std: c.ImageStd, DoRescale: c.DoRescale, DoNormalize: c.DoNormalize}
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
	if !c.NormParams().Valid() {
		return fmt.Errorf("qwenvl: rescale_factor %v, image_mean %v, image_std %v: %w",
			c.RescaleFactor, c.ImageMean, c.ImageStd, vision.ErrBadOptions)
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
