package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// This file answers: what do a model directory's tokenizer_config.json,
// generation_config.json and config.json say about special tokens and the
// chat template?

// Config is the tokenizer-related configuration of a model directory. Absent
// files and keys leave the zero value.
type Config struct {
	// Special tokens named by tokenizer_config.json ("" when absent or null).
	BOSToken, EOSToken, PadToken, UnkToken string
	// AddBOSToken and AddEOSToken are tokenizer_config.json's flags (the
	// slow-tokenizer convention; the tokenizer.json post-processor is what
	// Encode follows).
	AddBOSToken, AddEOSToken bool
	// ChatTemplate is tokenizer_config.json's chat_template (the one named
	// "default" when it is a list); ChatTemplates holds every named one.
	ChatTemplate  string
	ChatTemplates map[string]string
	// CleanUpTokenizationSpaces is tokenizer_config.json's flag of that name.
	CleanUpTokenizationSpaces bool
	// GenerationEOSTokenIDs is generation_config.json's eos_token_id (a
	// number or a list).
	GenerationEOSTokenIDs []uint32
	// ModelEOSTokenIDs is config.json's eos_token_id, or its
	// text_config.eos_token_id.
	ModelEOSTokenIDs []uint32
	// BOSTokenID is config.json's (or text_config's) bos_token_id, when set.
	BOSTokenID *uint32
}

// LoadConfig reads tokenizer_config.json, generation_config.json and
// config.json from dir; each may be absent.
func LoadConfig(dir string) (*Config, error) {
	c := &Config{}
	var tc struct {
		BOS          json.RawMessage `json:"bos_token"`
		EOS          json.RawMessage `json:"eos_token"`
		Pad          json.RawMessage `json:"pad_token"`
		Unk          json.RawMessage `json:"unk_token"`
		AddBOS       *bool           `json:"add_bos_token"`
		AddEOS       *bool           `json:"add_eos_token"`
		ChatTemplate json.RawMessage `json:"chat_template"`
		CleanUp      *bool           `json:"clean_up_tokenization_spaces"`
	}
	if err := readJSONFile(filepath.Join(dir, "tokenizer_config.json"), &tc); err != nil {
		return nil, err
	}
	var err error
	for _, f := range []struct {
		raw json.RawMessage
		dst *string
	}{{tc.BOS, &c.BOSToken}, {tc.EOS, &c.EOSToken}, {tc.Pad, &c.PadToken}, {tc.Unk, &c.UnkToken}} {
		if *f.dst, err = tokenText(f.raw); err != nil {
			return nil, fmt.Errorf("tokenizer: config %s: %w", dir, err)
		}
	}
	c.AddBOSToken = tc.AddBOS != nil && *tc.AddBOS
	c.AddEOSToken = tc.AddEOS != nil && *tc.AddEOS
	c.CleanUpTokenizationSpaces = tc.CleanUp != nil && *tc.CleanUp
	if c.ChatTemplate, c.ChatTemplates, err = chatTemplates(tc.ChatTemplate); err != nil {
		return nil, fmt.Errorf("tokenizer: config %s: %w", dir, err)
	}

	var gc struct {
		EOS json.RawMessage `json:"eos_token_id"`
	}
	if err := readJSONFile(filepath.Join(dir, "generation_config.json"), &gc); err != nil {
		return nil, err
	}
	if c.GenerationEOSTokenIDs, err = idList(gc.EOS); err != nil {
		return nil, fmt.Errorf("tokenizer: generation_config.json: %w", err)
	}

	type ids struct {
		EOS json.RawMessage `json:"eos_token_id"`
		BOS json.RawMessage `json:"bos_token_id"`
	}
	var mc struct {
		ids
		TextConfig *ids `json:"text_config"`
	}
	if err := readJSONFile(filepath.Join(dir, "config.json"), &mc); err != nil {
		return nil, err
	}
	eos, bos := mc.EOS, mc.BOS
	if mc.TextConfig != nil {
		if isNull(eos) {
			eos = mc.TextConfig.EOS
		}
		if isNull(bos) {
			bos = mc.TextConfig.BOS
		}
	}
	if c.ModelEOSTokenIDs, err = idList(eos); err != nil {
		return nil, fmt.Errorf("tokenizer: config.json: %w", err)
	}
	b, err := idList(bos)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: config.json: %w", err)
	}
	if len(b) > 0 {
		c.BOSTokenID = &b[0]
	}
	return c, nil
}

// StopTokenIDs returns the ids that end generation: the EOS token of
// tokenizer_config.json (looked up in t), then generation_config.json's and
// config.json's eos ids, without repeats.
func (c *Config) StopTokenIDs(t *Tokenizer) []uint32 {
	out := []uint32{}
	seen := map[uint32]bool{}
	add := func(id uint32) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	if t != nil && c.EOSToken != "" {
		if id, ok := t.TokenID(c.EOSToken); ok {
			add(id)
		}
	}
	for _, id := range c.GenerationEOSTokenIDs {
		add(id)
	}
	for _, id := range c.ModelEOSTokenIDs {
		add(id)
	}
	return out
}

// readJSONFile decodes path into v; a missing file leaves v alone.
func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		// A folder whose tokenizer.json is compressed may have its
		// configuration compressed too (Load reads tokenizer.json.gz).
		if b, err = readMaybeGzip(path + ".gz"); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		path += ".gz"
	}
	if err != nil {
		return fmt.Errorf("tokenizer: config: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("tokenizer: config %s: %w: %v", path, ErrBadInput, err)
	}
	return nil
}

// tokenText reads a special token given as a string, as {"content": ...}
// (an AddedToken), or null.
func tokenText(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var o struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return "", fmt.Errorf("%w: special token %s", ErrBadInput, raw)
	}
	return o.Content, nil
}

// chatTemplates reads chat_template as a string or a list of
// {"name", "template"}.
func chatTemplates(raw json.RawMessage) (string, map[string]string, error) {
	if isNull(raw) {
		return "", nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, map[string]string{"default": s}, nil
	}
	var list []struct {
		Name     string `json:"name"`
		Template string `json:"template"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", nil, fmt.Errorf("%w: chat_template is neither a string nor a list", ErrBadInput)
	}
	m := make(map[string]string, len(list))
	for _, e := range list {
		m[e.Name] = e.Template
	}
	return m["default"], m, nil
}

// idList reads a token id or a list of ids (null gives none).
func idList(raw json.RawMessage) ([]uint32, error) {
	if isNull(raw) {
		return nil, nil
	}
	var one uint32
	if json.Unmarshal(raw, &one) == nil {
		return []uint32{one}, nil
	}
	var many []uint32
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("%w: token ids %s", ErrBadInput, raw)
	}
	return many, nil
}
