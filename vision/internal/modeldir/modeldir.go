// Package modeldir reads the JSON files of a Hugging Face model folder that a
// processor needs (config.json, the processor configurations,
// tokenizer_config.json), in a fixed order, with the same errors for every
// family.
//
// Errors wrap vision.ErrBadOptions. The functions keep no state and are safe
// for concurrent use.
package modeldir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mmgate/mmgate/vision"
)

// File is one file of a folder and what to do with its bytes.
type File struct {
	Name     string
	Required bool // a missing required file is an error; a missing optional one is skipped
	Apply    func(data []byte) error
}

// Read reads the files of dir in order and hands each one's bytes to its
// Apply, stopping at the first error.
func Read(dir string, files ...File) error {
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f.Name))
		if errors.Is(err, fs.ErrNotExist) && !f.Required {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %v: %w", f.Name, err, vision.ErrBadOptions)
		}
		if err := f.Apply(data); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}

// ModelType returns config.json's model_type ("" when absent).
func ModelType(data []byte) (string, error) {
	var r struct {
		ModelType string `json:"model_type"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return "", fmt.Errorf("%v: %w", err, vision.ErrBadOptions)
	}
	return r.ModelType, nil
}

// ExtraTokens sets, for each name of tokens present and not null in
// tokenizer_config.json's extra_special_tokens, the string it names (which
// transformers exposes as a tokenizer attribute). Names that are absent keep
// their value; a value that is not a non-empty string is an error.
func ExtraTokens(data []byte, tokens map[string]*string) error {
	var r struct {
		Extra map[string]json.RawMessage `json:"extra_special_tokens"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("%v: %w", err, vision.ErrBadOptions)
	}
	for name, dst := range tokens {
		raw, ok := r.Extra[name]
		if !ok || string(raw) == "null" {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || s == "" {
			return fmt.Errorf("extra_special_tokens.%s: want a non-empty string: %w", name, vision.ErrBadOptions)
		}
		*dst = s
	}
	return nil
}
