package glm4v

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/hfconfig"
	"github.com/mmgate/mmgate/vision/norm"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

// Model types (config.json model_type) this package serves.
const (
	ModelGLM4V    = "glm4v"
	ModelGLM4VMoE = "glm4v_moe"
)

// Class defaults of Glm4vImageProcessor and Glm4vVideoProcessor: the bounds
// on t̄·h̄·w̄ when a file has no size.
const (
	imageMinPixels = 112 * 112
	imageMaxPixels = 28 * 28 * 15000
	videoMinPixels = 112 * 112
	videoMaxPixels = 28 * 28 * 2 * 30000
	defaultFPS     = 2
	// MaxDuration is Glm4vVideoProcessor.max_duration: longer videos are
	// sampled with a linspace over MaxDuration·fps frames.
	MaxDuration = 300
)

// Settings are one processor's values (preprocessor_config.json or
// video_preprocessor_config.json).
type Settings struct {
	PatchSize, TemporalPatchSize, MergeSize int
	// MinPixels and MaxPixels are size.shortest_edge and size.longest_edge:
	// bounds on t̄·h̄·w̄, the frame count (temporal_patch_size for an image)
	// times the resized area.
	MinPixels, MaxPixels int
	ImageMean, ImageStd  [3]float64
	RescaleFactor        float64
	Resample             int
	DoResize             bool
	DoRescale            bool
	DoNormalize          bool
}

// Factor is patch_size·merge_size, the granularity of resized sides.
func (s Settings) Factor() int { return s.PatchSize * s.MergeSize }

// Config is the processor configuration of one GLM-4.1V / 4.5V checkpoint.
type Config struct {
	ModelType string
	Image     Settings
	Video     Settings
	// FPS is the video sampling rate (fps, default 2); SampleFrames is
	// do_sample_frames (default true; false takes every frame).
	FPS          float64
	SampleFrames bool
	// Token texts: the image and video placeholders (the tokenizer's
	// image_token / video_token, default <|image|> and <|video|>) and the
	// markers around them.
	ImageToken, VideoToken string
	BeginImage, EndImage   string
	BeginVideo, EndVideo   string
}

// DefaultConfig is the configuration the classes give when every file is
// silent.
func DefaultConfig() Config {
	s := Settings{
		PatchSize: 14, TemporalPatchSize: 2, MergeSize: 2,
		RescaleFactor: norm.DefaultRescale, Resample: 3, DoResize: true, DoRescale: true, DoNormalize: true,
	}
	s.ImageMean, s.ImageStd = norm.OpenAICLIP()
	img, vid := s, s
	img.MinPixels, img.MaxPixels = imageMinPixels, imageMaxPixels
	vid.MinPixels, vid.MaxPixels = videoMinPixels, videoMaxPixels
	return Config{
		ModelType: ModelGLM4V, Image: img, Video: vid, FPS: defaultFPS, SampleFrames: true,
		ImageToken: "<|image|>", VideoToken: "<|video|>",
		BeginImage: "<|begin_of_image|>", EndImage: "<|end_of_image|>",
		BeginVideo: "<|begin_of_video|>", EndVideo: "<|end_of_video|>",
	}
}

// parseSettings reads one processor file into s. The fields GLM shares with
// Qwen2-VL are read by qwenvl.ParseImageConfig; the pixel bounds come only
// from size (GLM's classes have no min_pixels / max_pixels), and a size
// without both edges is refused, as the classes refuse it.
func parseSettings(data []byte, s *Settings) error {
	q, err := qwenvl.ParseImageConfig(data, qwenvl.ModelQwen2VL)
	if err != nil {
		return err
	}
	var r struct {
		Size *struct {
			ShortestEdge *float64 `json:"shortest_edge"`
			LongestEdge  *float64 `json:"longest_edge"`
		} `json:"size"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("size: %v: %w", err, vision.ErrBadOptions)
	}
	if r.Size != nil {
		lo, hi := r.Size.ShortestEdge, r.Size.LongestEdge
		if lo == nil || hi == nil || !pixelCount(*lo) || !pixelCount(*hi) {
			return fmt.Errorf("size must hold shortest_edge and longest_edge pixel counts: %w", vision.ErrBadOptions)
		}
		s.MinPixels, s.MaxPixels = int(*lo), int(*hi)
	}
	s.PatchSize, s.TemporalPatchSize, s.MergeSize = q.PatchSize, q.TemporalPatchSize, q.MergeSize
	s.ImageMean, s.ImageStd, s.RescaleFactor, s.Resample = q.ImageMean, q.ImageStd, q.RescaleFactor, q.Resample
	s.DoResize, s.DoRescale, s.DoNormalize = q.DoResize, q.DoRescale, q.DoNormalize
	return nil
}

func pixelCount(f float64) bool { return f >= 0 && f <= 1<<40 && f == math.Trunc(f) }

// ParseImageConfig applies preprocessor_config.json to c.
func (c *Config) ParseImageConfig(data []byte) error {
	if err := parseSettings(data, &c.Image); err != nil {
		return fmt.Errorf("glm4v: preprocessor config: %w", err)
	}
	return nil
}

// ParseVideoConfig applies video_preprocessor_config.json to c.
func (c *Config) ParseVideoConfig(data []byte) error {
	if err := parseSettings(data, &c.Video); err != nil {
		return fmt.Errorf("glm4v: video preprocessor config: %w", err)
	}
	var r struct {
		FPS            *float64 `json:"fps"`
		DoSampleFrames *bool    `json:"do_sample_frames"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("glm4v: video preprocessor config: %v: %w", err, vision.ErrBadOptions)
	}
	if r.FPS != nil {
		c.FPS = *r.FPS
	}
	if r.DoSampleFrames != nil {
		c.SampleFrames = *r.DoSampleFrames
	}
	return nil
}

// ParseTokenizerConfig takes image_token / video_token from
// tokenizer_config.json's extra_special_tokens when it names them
// (Glm4vProcessor prefers the tokenizer's attributes to its defaults).
func (c *Config) ParseTokenizerConfig(data []byte) error {
	if err := hfconfig.ExtraTokens(data, map[string]*string{"image_token": &c.ImageToken, "video_token": &c.VideoToken}); err != nil {
		return fmt.Errorf("glm4v: tokenizer config: %w", err)
	}
	return nil
}

// LoadConfig reads a model folder: config.json (model_type) and
// preprocessor_config.json are required; video_preprocessor_config.json
// and tokenizer_config.json are read when present.
func LoadConfig(dir string) (*Config, error) {
	c := DefaultConfig()
	c.ModelType = ""
	files := []hfconfig.File{
		{Name: "config.json", Required: true, Apply: func(b []byte) (err error) { c.ModelType, err = hfconfig.ModelType(b); return }},
		{Name: "preprocessor_config.json", Required: true, Apply: c.ParseImageConfig},
		{Name: "video_preprocessor_config.json", Apply: c.ParseVideoConfig},
		{Name: "tokenizer_config.json", Apply: c.ParseTokenizerConfig},
	}
	if err := hfconfig.Read(dir, files...); err != nil {
		return nil, fmt.Errorf("glm4v: load %s: %w", dir, err)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("glm4v: load %s: %w", dir, err)
	}
	return &c, nil
}

// Load builds a processor from a model folder (see LoadConfig).
func Load(dir string, o Options) (*Processor, error) {
	cfg, err := LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	return New(cfg, o)
}

// Validate checks that the configuration describes a processor this package
// implements.
func (c *Config) Validate() error {
	switch c.ModelType {
	case ModelGLM4V, ModelGLM4VMoE:
	case "":
		return fmt.Errorf("glm4v: no model type: %w", vision.ErrBadOptions)
	default:
		return fmt.Errorf("glm4v: model type %q: %w", c.ModelType, vision.ErrUnsupported)
	}
	for _, s := range []Settings{c.Image, c.Video} {
		if s.MaxPixels < 1 || s.MinPixels < 0 {
			return fmt.Errorf("glm4v: size [%d, %d]: %w", s.MinPixels, s.MaxPixels, vision.ErrBadOptions)
		}
		if err := s.qwen().Validate(); err != nil {
			return fmt.Errorf("glm4v: %w", err)
		}
	}
	if !(c.FPS > 0) || math.IsInf(c.FPS, 0) {
		return fmt.Errorf("glm4v: fps %v: %w", c.FPS, vision.ErrBadOptions)
	}
	for _, t := range []string{c.ImageToken, c.VideoToken, c.BeginImage, c.EndImage, c.BeginVideo, c.EndVideo} {
		if t == "" {
			return fmt.Errorf("glm4v: empty token text: %w", vision.ErrBadOptions)
		}
	}
	return nil
}

// qwen is s as the Qwen2-VL processor configuration that performs GLM's
// pixel stages (its own pixel bounds are never used: this package plans).
func (s Settings) qwen() *qwenvl.Config {
	return &qwenvl.Config{
		ModelType: qwenvl.ModelQwen2VL,
		PatchSize: s.PatchSize, TemporalPatchSize: s.TemporalPatchSize, MergeSize: s.MergeSize,
		MinPixels: s.MinPixels, MaxPixels: s.MaxPixels,
		ImageMean: s.ImageMean, ImageStd: s.ImageStd, RescaleFactor: s.RescaleFactor, Resample: s.Resample,
		DoResize: s.DoResize, DoRescale: s.DoRescale, DoNormalize: s.DoNormalize, DoConvertRGB: true,
	}
}
