package family

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Registry is an ordered list of families. It is immutable and safe for
// concurrent use.
type Registry struct {
	fams     []Family
	fallback Family
}

// NewRegistry returns a registry of fams in the order given; nil entries
// are dropped. The order decides between families that claim the same
// model type or architecture: the earlier one wins.
func NewRegistry(fams ...Family) *Registry {
	r := &Registry{fams: make([]Family, 0, len(fams))}
	for _, f := range fams {
		if f != nil {
			r.fams = append(r.fams, f)
		}
	}
	return r
}

// WithFallback returns a registry of r's families that also serves, with
// f, a model folder no family claims whose config.json declares no media
// (DeclaresMedia): a text-only model. A model that does declare media and
// that no family claims is still refused with an *UnknownModelError.
func (r *Registry) WithFallback(f Family) *Registry {
	return &Registry{fams: slices.Clone(r.fams), fallback: f}
}

// Fallback is the family of text-only models no family claims; nil when
// the registry has none.
func (r *Registry) Fallback() Family { return r.fallback }

// Families returns the families in registry order.
func (r *Registry) Families() []Family { return slices.Clone(r.fams) }

// ModelTypes lists every family's model types in registry order, each
// once.
func (r *Registry) ModelTypes() []string {
	out := []string{}
	for _, f := range r.fams {
		for _, t := range f.ModelTypes() {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// Presets lists every family's preset names in registry order.
func (r *Registry) Presets() []string {
	out := []string{}
	for _, f := range r.fams {
		out = append(out, f.Presets()...)
	}
	return out
}

// Match returns the family of a model: the first family (in registry
// order) whose model types hold modelType; else the first whose
// architectures hold one of architectures; else an *UnknownModelError.
func (r *Registry) Match(modelType string, architectures []string) (Family, error) {
	if modelType != "" {
		for _, f := range r.fams {
			if slices.Contains(f.ModelTypes(), modelType) {
				return f, nil
			}
		}
	}
	for _, f := range r.fams {
		for _, a := range architectures {
			if a != "" && slices.Contains(f.Architectures(), a) {
				return f, nil
			}
		}
	}
	return nil, &UnknownModelError{ModelType: modelType, Architectures: slices.Clone(architectures), Supported: r.ModelTypes()}
}

// Load reads dir/config.json, matches it and loads the model with its
// family, or with the fallback family (WithFallback) when no family claims
// it and it declares no media.
func (r *Registry) Load(dir string) (Model, error) {
	data, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("family: load %s: %v: %w", dir, err, ErrBadConfig)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("family: load %s: %w", dir, err)
	}
	c.Dir = dir
	f, err := r.Match(c.ModelType, c.Architectures)
	if err != nil {
		if r.fallback == nil || DeclaresMedia(c.JSON) {
			return nil, err
		}
		f = r.fallback
	}
	return f.Load(c)
}

// Open loads a preset by name (case-insensitive; a preset wins over a
// folder of the same name) or else the model folder nameOrDir.
func (r *Registry) Open(nameOrDir string) (Model, error) {
	for _, f := range r.fams {
		for _, p := range f.Presets() {
			if strings.EqualFold(p, nameOrDir) {
				mt := ""
				if ts := f.ModelTypes(); len(ts) > 0 {
					mt = ts[0]
				}
				return f.Load(&Config{Preset: p, ModelType: mt})
			}
		}
	}
	if fi, err := os.Stat(nameOrDir); err != nil || !fi.IsDir() {
		return nil, errUnknownName(nameOrDir, r.Presets())
	}
	return r.Load(nameOrDir)
}

// ParseConfig reads the keys of config.json that matching needs. The JSON
// must be one object; model_type must be a string and architectures a list
// of strings when present.
func ParseConfig(data []byte) (*Config, error) {
	var c struct {
		ModelType     *string  `json:"model_type"`
		Architectures []string `json:"architectures"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("config.json: %v: %w", err, ErrBadConfig)
	}
	if dec.More() {
		return nil, fmt.Errorf("config.json: trailing data after the object: %w", ErrBadConfig)
	}
	out := &Config{Architectures: c.Architectures, JSON: data}
	if c.ModelType != nil {
		out.ModelType = *c.ModelType
	}
	return out, nil
}
