package protocol

import (
	"encoding/json"
	"fmt"
	"math"
)

// SamplingDefaults are a model's sampling defaults as engines publish them
// (GetModelInfo's default_sampling_params_json, read from the model's
// generation config): nil fields have none.
type SamplingDefaults struct {
	Temperature       *float32
	TopP              *float32
	TopK              *int32
	MinP              *float32
	RepetitionPenalty *float32
}

// ParseSamplingDefaults reads a default_sampling_params_json value: a JSON
// object whose keys temperature, top_p, top_k, min_p and
// repetition_penalty are taken (other keys are ignored, as by SMG). An
// empty string has no defaults; a value that is not such an object is an
// error.
func ParseSamplingDefaults(js string) (SamplingDefaults, error) {
	var d SamplingDefaults
	if js == "" {
		return d, nil
	}
	var raw map[string]*float64
	if err := json.Unmarshal([]byte(js), &raw); err != nil {
		return d, fmt.Errorf("default sampling params: %w", err)
	}
	f32 := func(k string) *float32 {
		if v := raw[k]; v != nil && !math.IsNaN(*v) && !math.IsInf(*v, 0) {
			x := float32(*v)
			return &x
		}
		return nil
	}
	d.Temperature, d.TopP, d.MinP, d.RepetitionPenalty = f32("temperature"), f32("top_p"), f32("min_p"), f32("repetition_penalty")
	if v := raw["top_k"]; v != nil && *v == math.Trunc(*v) && *v >= math.MinInt32 && *v <= math.MaxInt32 {
		k := int32(*v)
		d.TopK = &k
	}
	return d, nil
}

// Apply fills the parameters s leaves out with the defaults.
func (d SamplingDefaults) Apply(s *Sampling) {
	fill := func(dst **float32, v *float32) {
		if *dst == nil && v != nil {
			x := *v
			*dst = &x
		}
	}
	fill(&s.Temperature, d.Temperature)
	fill(&s.TopP, d.TopP)
	fill(&s.MinP, d.MinP)
	fill(&s.RepetitionPenalty, d.RepetitionPenalty)
	if s.TopK == nil && d.TopK != nil {
		k := *d.TopK
		s.TopK = &k
	}
}
