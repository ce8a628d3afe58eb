package pipeline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// GenerationDefaults are the sampling defaults a model folder's
// generation_config.json sets, the ones vLLM takes from it
// (ModelConfig.get_diff_sampling_param): repetition_penalty, temperature,
// top_k, top_p, min_p and max_new_tokens (vLLM's max_tokens). A nil field
// is not set. As with transformers v5's GenerationConfig, whose defaults
// are unset, every value present is a default, even one equal to vLLM's
// own.
type GenerationDefaults struct {
	RepetitionPenalty *float64 `json:"repetition_penalty"`
	Temperature       *float64 `json:"temperature"`
	TopK              *int     `json:"top_k"`
	TopP              *float64 `json:"top_p"`
	MinP              *float64 `json:"min_p"`
	MaxNewTokens      *int     `json:"max_new_tokens"`
}

// readGenerationDefaults reads dir/generation_config.json; a folder
// without one has no defaults.
func readGenerationDefaults(dir string) (GenerationDefaults, error) {
	var g GenerationDefaults
	b, err := os.ReadFile(filepath.Join(dir, "generation_config.json"))
	if os.IsNotExist(err) {
		return g, nil
	}
	if err != nil {
		return g, err
	}
	if err := json.Unmarshal(b, &g); err != nil {
		return g, fmt.Errorf("generation_config.json: %w", err)
	}
	return g, nil
}
