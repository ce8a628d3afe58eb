package family

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/vision"
)

// Spec is a Family described by values: its name, the model types and
// architectures it claims, its presets and the function that loads its
// models. Families whose matching is their lists alone use it.
type Spec struct {
	FamilyName  string
	Types       []string
	Archs       []string
	PresetNames []string
	// LoadModel loads the model c describes; f is the Spec itself (the
	// model's Family).
	LoadModel func(f Family, c *Config) (Model, error)
}

func (s *Spec) Name() string            { return s.FamilyName }
func (s *Spec) ModelTypes() []string    { return slices.Clone(s.Types) }
func (s *Spec) Architectures() []string { return slices.Clone(s.Archs) }
func (s *Spec) Presets() []string       { return slices.Clone(s.PresetNames) }

// Load implements Family.
func (s *Spec) Load(c *Config) (Model, error) { return s.LoadModel(s, c) }

// ImageOnly holds what the models of image-only families share: the
// family, the model type, the processor configuration as JSON (the
// ProcessorKey), the images' wire layout; no video, no output format, and
// by default no side tensors, no extras and one pad run per image. Family
// packages embed it and override what differs.
type ImageOnly struct {
	Fam  Family
	Type string
	Key  string
	Wire Layout
}

// NewImageOnly returns the ImageOnly of a model of fam whose config.json
// says modelType, whose processor configuration is cfg (as JSON in the
// tensor cache key) and whose images travel as wire says.
func NewImageOnly(fam Family, modelType string, cfg any, wire Layout) (ImageOnly, error) {
	key, err := json.Marshal(cfg)
	if err != nil {
		return ImageOnly{}, fmt.Errorf("family: %s: processor configuration: %v: %w", fam.Name(), err, ErrBadConfig)
	}
	return ImageOnly{Fam: fam, Type: modelType, Key: string(key), Wire: wire}, nil
}

// LoadImageOnly is the Load of an image-only family: the processor
// configuration load reads from the model folder, a processor build makes
// with one worker (for planning and prompt layout in the family, never for
// pixels), and the model's ImageOnly.
func LoadImageOnly[C, P any](fam Family, c *Config, wire Layout, load func(dir string) (C, error),
	build func(C, vision.ProcessorOptions) (P, error)) (ImageOnly, C, P, error) {
	var (
		cfg  C
		proc P
		base ImageOnly
		err  error
	)
	if c.Preset != "" {
		return base, cfg, proc, fmt.Errorf("family: %s has no presets: %w", fam.Name(), vision.ErrUnsupported)
	}
	if cfg, err = load(c.Dir); err != nil {
		return base, cfg, proc, err
	}
	if proc, err = build(cfg, vision.ProcessorOptions{Workers: 1}); err != nil {
		return base, cfg, proc, err
	}
	base, err = NewImageOnly(fam, c.ModelType, cfg, wire)
	return base, cfg, proc, err
}

func (m ImageOnly) Family() Family                 { return m.Fam }
func (m ImageOnly) ModelType() string              { return m.Type }
func (m ImageOnly) Modalities() []vision.Modality  { return []vision.Modality{vision.Image} }
func (m ImageOnly) ProcessorKey() string           { return m.Key }
func (m ImageOnly) Output() OutputFormat           { return OutputFormat{} }
func (m ImageOnly) Extras(Item) []Field            { return nil }
func (m ImageOnly) SideTensors(Item) []NamedTensor { return nil }

// Expansion implements Model: the image's pads in one run.
func (m ImageOnly) Expansion(it Item) prompt.Expansion {
	return prompt.Expansion{Tokens: it.Plan.Tokens}
}

// Layout implements Model: Wire for images.
func (m ImageOnly) Layout(v vision.Modality) Layout {
	if v != vision.Image {
		return Layout{}
	}
	return m.Wire
}

// VideoProcessor implements Model: an image-only family has none.
func (m ImageOnly) VideoProcessor(vision.ProcessorOptions) (vision.VideoProcessor, error) {
	return nil, fmt.Errorf("family: %s takes no video: %w", m.Fam.Name(), vision.ErrUnsupported)
}
