package chattemplate

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Set holds the chat templates a model folder provides.
type Set struct {
	// Processor is the processor template (chat_template.jinja, or
	// chat_template.json's "chat_template"); nil when the folder has none.
	Processor *Template
	// Tokenizer is tokenizer_config.json's chat_template (its "default"
	// entry when it is a list of named templates); nil when absent.
	Tokenizer *Template
	// ToolUse is tokenizer_config.json's named "tool_use" template, if any.
	ToolUse *Template
}

// maxTemplateFile bounds the template files Load reads.
const maxTemplateFile = 8 << 20

// Load reads the chat templates of the model folder dir: chat_template.jinja
// (or chat_template.json) and tokenizer_config.json. The tokenizer's
// special tokens (bos_token, eos_token, unk_token, pad_token,
// additional_special_tokens) become template globals, as in Hugging Face,
// added after o.Globals. Load fails when the folder has no template at all.
func Load(dir string, o Options) (*Set, error) {
	cfg, err := readTokenizerConfig(filepath.Join(dir, "tokenizer_config.json"))
	if err != nil {
		return nil, err
	}
	o.Globals = append(append(Object(nil), o.Globals...), cfg.globals()...)
	var s Set
	compile := func(name, src string) (*Template, error) {
		t, err := Compile(src, o)
		if err != nil {
			return nil, fmt.Errorf("chattemplate: %s: %w", name, err)
		}
		return t, nil
	}
	if src, ok, err := readFile(filepath.Join(dir, "chat_template.jinja")); err != nil {
		return nil, err
	} else if ok {
		if s.Processor, err = compile("chat_template.jinja", src); err != nil {
			return nil, err
		}
	} else if raw, ok, err := readFile(filepath.Join(dir, "chat_template.json")); err != nil {
		return nil, err
	} else if ok {
		var v struct {
			ChatTemplate string `json:"chat_template"`
		}
		if err := json.Unmarshal([]byte(raw), &v); err != nil || v.ChatTemplate == "" {
			return nil, fmt.Errorf("chattemplate: chat_template.json has no chat_template string: %w", ErrBadTemplate)
		}
		if s.Processor, err = compile("chat_template.json", v.ChatTemplate); err != nil {
			return nil, err
		}
	}
	if cfg.defaultTemplate != "" {
		if s.Tokenizer, err = compile("tokenizer_config.json", cfg.defaultTemplate); err != nil {
			return nil, err
		}
	}
	if cfg.toolUseTemplate != "" {
		if s.ToolUse, err = compile("tokenizer_config.json tool_use", cfg.toolUseTemplate); err != nil {
			return nil, err
		}
	}
	if s.Processor == nil && s.Tokenizer == nil {
		return nil, fmt.Errorf("chattemplate: %s has no chat template: %w", dir, ErrUnsupported)
	}
	return &s, nil
}

// Select picks the template for a request: the processor template when
// there is one, else the tokenizer's. When the request has tools and the
// picked template never reads them, the tokenizer's tool_use or default
// template is used if it does (vLLM's rule); if none does, Select fails
// with ErrUnsupported.
func (s *Set) Select(hasTools bool) (*Template, error) {
	primary := s.Processor
	if primary == nil {
		primary = s.Tokenizer
	}
	if primary == nil {
		return nil, fmt.Errorf("chattemplate: no chat template: %w", ErrUnsupported)
	}
	if !hasTools || primary.MentionsTools() {
		return primary, nil
	}
	for _, t := range []*Template{s.ToolUse, s.Tokenizer} {
		if t != nil && t.MentionsTools() {
			return t, nil
		}
	}
	return nil, fmt.Errorf("chattemplate: the model's chat templates do not support tools: %w", ErrUnsupported)
}

func readFile(path string) (string, bool, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return readGzip(path + ".gz")
	}
	if err != nil {
		return "", false, fmt.Errorf("chattemplate: %w", err)
	}
	if st.Size() > maxTemplateFile {
		return "", false, fmt.Errorf("chattemplate: %s is %d bytes: %w", path, st.Size(), ErrBadTemplate)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false, fmt.Errorf("chattemplate: %w", err)
	}
	return string(b), true, nil
}

// readGzip reads the gzip-compressed file path, as a folder whose
// tokenizer.json is compressed (tokenizer.Load reads tokenizer.json.gz) may
// have its other files compressed too; false when there is none.
func readGzip(path string) (string, bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("chattemplate: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", false, fmt.Errorf("chattemplate: %s: %v: %w", path, err, ErrBadTemplate)
	}
	b, err := io.ReadAll(io.LimitReader(zr, maxTemplateFile+1))
	if err != nil {
		return "", false, fmt.Errorf("chattemplate: %s: %v: %w", path, err, ErrBadTemplate)
	}
	if len(b) > maxTemplateFile {
		return "", false, fmt.Errorf("chattemplate: %s is over %d bytes: %w", path, maxTemplateFile, ErrBadTemplate)
	}
	return string(b), true, nil
}

type tokenizerConfig struct {
	defaultTemplate string
	toolUseTemplate string
	specials        Object
}

func (c tokenizerConfig) globals() Object { return c.specials }

// readTokenizerConfig reads the template and special tokens of a
// tokenizer_config.json; a missing file yields an empty config.
func readTokenizerConfig(path string) (tokenizerConfig, error) {
	var c tokenizerConfig
	raw, ok, err := readFile(path)
	if err != nil || !ok {
		return c, err
	}
	var v map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return c, fmt.Errorf("chattemplate: %s: %v: %w", path, err, ErrBadTemplate)
	}
	if ct, ok := v["chat_template"]; ok {
		var s string
		var named []struct {
			Name     string `json:"name"`
			Template string `json:"template"`
		}
		switch {
		case json.Unmarshal(ct, &s) == nil:
			c.defaultTemplate = s
		case json.Unmarshal(ct, &named) == nil:
			for _, n := range named {
				switch n.Name {
				case "default":
					c.defaultTemplate = n.Template
				case "tool_use":
					c.toolUseTemplate = n.Template
				}
			}
		default:
			return c, fmt.Errorf("chattemplate: %s: chat_template is neither a string nor a list: %w", path, ErrBadTemplate)
		}
	}
	for _, name := range []string{"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"} {
		if tok := tokenContent(v[name]); tok != "" {
			c.specials = append(c.specials, Field{Key: name, Value: tok})
		}
	}
	var extra []json.RawMessage
	if json.Unmarshal(v["additional_special_tokens"], &extra) == nil && len(extra) > 0 {
		list := make([]any, 0, len(extra))
		for _, e := range extra {
			if tok := tokenContent(e); tok != "" {
				list = append(list, tok)
			}
		}
		c.specials = append(c.specials, Field{Key: "additional_special_tokens", Value: list})
	}
	return c, nil
}

// tokenContent reads a special token written as a string or as an
// AddedToken object {"content": …}.
func tokenContent(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(raw, &o) == nil {
		return o.Content
	}
	return ""
}
