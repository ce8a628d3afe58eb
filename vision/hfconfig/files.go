package hfconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mmgate/mmgate/vision"
)

// The file names of a model folder.
const (
	ModelFile        = "config.json"
	PreprocessorFile = "preprocessor_config.json"
	ProcessorFile    = "processor_config.json"
	VideoFile        = "video_preprocessor_config.json"
	TokenizerFile    = "tokenizer_config.json"
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

// Files are the JSON files of a model folder a plane-keeping processor
// reads; a nil field means the file is absent.
type Files struct {
	Preprocessor []byte // preprocessor_config.json (required)
	Processor    []byte // processor_config.json
	Tokenizer    []byte // tokenizer_config.json
	Model        []byte // config.json
}

// ReadFiles reads a model folder's Files. A missing preprocessor_config.json
// is an error wrapping vision.ErrBadOptions; the others may be absent.
func ReadFiles(dir string) (Files, error) {
	var f Files
	keep := func(dst *[]byte) func([]byte) error {
		return func(b []byte) error { *dst = b; return nil }
	}
	err := Read(dir,
		File{PreprocessorFile, true, keep(&f.Preprocessor)},
		File{ProcessorFile, false, keep(&f.Processor)},
		File{TokenizerFile, false, keep(&f.Tokenizer)},
		File{ModelFile, false, keep(&f.Model)})
	return f, err
}

// Load reads a model folder's Files and parses them; errors name the
// package and the folder.
func Load[C any](pkg, dir string, parse func(Files) (C, error)) (C, error) {
	var zero C
	f, err := ReadFiles(dir)
	if err != nil {
		return zero, fmt.Errorf("%s: load %s: %w", pkg, dir, err)
	}
	c, err := parse(f)
	if err != nil {
		return zero, fmt.Errorf("load %s: %w", dir, err)
	}
	return c, nil
}

// DecodeAll decodes each file of f into its target: preprocessor_config.json
// (required) into pre, processor_config.json into proc,
// tokenizer_config.json into tok and config.json into model. Absent files
// and nil targets are skipped.
func (f Files) DecodeAll(pre, proc, tok, model any) error {
	if f.Preprocessor == nil {
		return fmt.Errorf("no %s: %w", PreprocessorFile, vision.ErrBadOptions)
	}
	for _, x := range []struct {
		name string
		data []byte
		v    any
	}{{PreprocessorFile, f.Preprocessor, pre}, {ProcessorFile, f.Processor, proc},
		{TokenizerFile, f.Tokenizer, tok}, {ModelFile, f.Model, model}} {
		if x.v == nil {
			continue
		}
		if err := Decode(x.name, x.data, x.v); err != nil {
			return err
		}
	}
	return nil
}

// Decode unmarshals the file called name into v; nil data (an absent file)
// leaves v as it is. Errors wrap vision.ErrBadOptions and name the file.
func Decode(name string, data []byte, v any) error {
	if data == nil {
		return nil
	}
	if err := DecodeStrict(data, v); err != nil {
		return fmt.Errorf("%s: %v: %w", name, err, vision.ErrBadOptions)
	}
	return nil
}

// DecodeStrict unmarshals one JSON value and refuses trailing data.
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
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

// TokenScopes returns the objects of a config.json where multimodal
// checkpoints write their token ids: the top level, then text_config and
// thinker_config when they are objects. JSON that is not an object is an
// error wrapping vision.ErrBadOptions.
func TokenScopes(configJSON []byte) ([]map[string]json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(configJSON, &top); err != nil || top == nil {
		return nil, fmt.Errorf("%s: not a JSON object (%v): %w", ModelFile, err, vision.ErrBadOptions)
	}
	scopes := []map[string]json.RawMessage{top}
	for _, sub := range []string{"text_config", "thinker_config"} {
		var m map[string]json.RawMessage
		if json.Unmarshal(top[sub], &m) == nil && m != nil {
			scopes = append(scopes, m)
		}
	}
	return scopes, nil
}
