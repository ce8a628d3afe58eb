package refworker

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/family/builtin"
	commonpb "github.com/mmgate/mmgate/proto/common"
	"github.com/mmgate/mmgate/tokenizer"
	"github.com/mmgate/mmgate/vision"
)

// ErrModel is returned for a model folder the worker cannot serve.
var ErrModel = errors.New("refworker: bad model folder")

// modelInfo is what the worker reads from a model folder's config.json and
// generation_config.json, and the model as its family loads it (which media
// it takes and how an item is checked).
type modelInfo struct {
	ModelType      string
	Architectures  []string
	ContextLength  int
	VocabSize      int
	DType          string
	EOS            []int32
	BOS, Pad       int32
	Model          family.Model // the model as its family loaded it
	Modalities     []commonpb.Modality
	takes          []vision.Modality // Modalities as the family names them
	SupportsVision bool
	// SamplingDefaults are generation_config.json's sampling values as
	// engines publish them (default_sampling_params_json), "" for none.
	SamplingDefaults string
}

// samplingKeys are the generation_config.json keys engines publish as
// sampling defaults.
var samplingKeys = []string{"temperature", "top_p", "top_k", "min_p", "repetition_penalty"}

// wireModality is the protocol's name of a modality.
func wireModality(m vision.Modality) commonpb.Modality {
	switch m {
	case vision.Image:
		return commonpb.Modality_IMAGE
	case vision.Video:
		return commonpb.Modality_VIDEO
	case vision.Audio:
		return commonpb.Modality_AUDIO
	}
	return commonpb.Modality_MODALITY_UNSPECIFIED
}

// media is the family's modality of a wire modality the model takes.
func (m *modelInfo) media(w commonpb.Modality) (vision.Modality, bool) {
	for i, x := range m.Modalities {
		if x == w {
			return m.takes[i], true
		}
	}
	return 0, false
}

// configJSON is the subset of config.json the worker reads. Qwen3-VL keeps the
// text model's fields under text_config; older models keep them at the top.
type configJSON struct {
	ModelType      string          `json:"model_type"`
	Architectures  []string        `json:"architectures"`
	MaxPositionEmb int             `json:"max_position_embeddings"`
	VocabSize      int             `json:"vocab_size"`
	TorchDType     string          `json:"torch_dtype"`
	DType          string          `json:"dtype"`
	EOSTokenID     json.RawMessage `json:"eos_token_id"`
	BOSTokenID     *int32          `json:"bos_token_id"`
	PadTokenID     *int32          `json:"pad_token_id"`
	TextConfig     *configJSON     `json:"text_config"`
}

// loadModelInfo reads dir/config.json (required) and
// dir/generation_config.json (optional; its eos ids win), and loads the
// model with its family from reg (nil: the built-in families).
func loadModelInfo(dir string, reg *family.Registry) (*modelInfo, error) {
	var c configJSON
	if err := readJSON(filepath.Join(dir, "config.json"), &c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	if reg == nil {
		reg = builtin.New()
	}
	fm, err := reg.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	m := &modelInfo{ModelType: c.ModelType, Architectures: c.Architectures, Model: fm}
	for _, mod := range fm.Modalities() {
		w := wireModality(mod)
		if w == commonpb.Modality_MODALITY_UNSPECIFIED {
			continue
		}
		m.Modalities = append(m.Modalities, w)
		m.takes = append(m.takes, mod)
		m.SupportsVision = m.SupportsVision || mod == vision.Image || mod == vision.Video
	}
	text := &c
	if c.TextConfig != nil {
		text = c.TextConfig
	}
	m.ContextLength = first(text.MaxPositionEmb, c.MaxPositionEmb)
	m.VocabSize = first(text.VocabSize, c.VocabSize)
	m.DType = firstString(text.DType, text.TorchDType, c.DType, c.TorchDType, "bfloat16")
	eos, err := parseIDs(firstRaw(c.EOSTokenID, text.EOSTokenID))
	if err != nil {
		return nil, fmt.Errorf("%w: config.json eos_token_id: %v", ErrModel, err)
	}
	m.EOS = eos
	if p := firstPtr(text.BOSTokenID, c.BOSTokenID); p != nil {
		m.BOS = *p
	}
	if p := firstPtr(text.PadTokenID, c.PadTokenID); p != nil {
		m.Pad = *p
	}
	var g map[string]json.RawMessage
	switch err := readJSON(filepath.Join(dir, "generation_config.json"), &g); {
	case err == nil:
		if ids, err := parseIDs(g["eos_token_id"]); err == nil && len(ids) > 0 {
			m.EOS = mergeIDs(ids, m.EOS)
		}
		m.SamplingDefaults = samplingDefaults(g)
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	if m.ContextLength <= 0 {
		m.ContextLength = 32768
	}
	return m, nil
}

// tokenizerEOS is the id of tokenizer_config.json's eos_token, for a model
// whose config.json and generation_config.json name no eos id (llava-hf's
// LLaVA-1.5): the model still stops there, as vLLM stops at the
// tokenizer's eos. None when the tokenizer cannot look tokens up.
func tokenizerEOS(dir string, tok Tokenizer) []int32 {
	lookup, ok := tok.(interface{ TokenID(string) (uint32, bool) })
	cfg, err := tokenizer.LoadConfig(dir)
	if !ok || err != nil || cfg.EOSToken == "" {
		return nil
	}
	if id, ok := lookup.TokenID(cfg.EOSToken); ok {
		return []int32{int32(id)}
	}
	return nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}

// parseIDs accepts an id, a list of ids, or nothing.
func parseIDs(raw json.RawMessage) ([]int32, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	var one int32
	if err := json.Unmarshal(raw, &one); err == nil {
		return []int32{one}, nil
	}
	var many []int32
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, err
	}
	return many, nil
}

// mergeIDs returns a followed by the ids of b it lacks.
func mergeIDs(a, b []int32) []int32 {
	out := append([]int32(nil), a...)
	for _, x := range b {
		found := false
		for _, y := range out {
			found = found || x == y
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

func first(v ...int) int {
	for _, x := range v {
		if x > 0 {
			return x
		}
	}
	return 0
}

func firstString(v ...string) string {
	for _, x := range v {
		if x != "" {
			return x
		}
	}
	return ""
}

func firstRaw(v ...json.RawMessage) json.RawMessage {
	for _, x := range v {
		if len(x) > 0 && string(x) != "null" {
			return x
		}
	}
	return nil
}

func firstPtr(v ...*int32) *int32 {
	for _, x := range v {
		if x != nil {
			return x
		}
	}
	return nil
}

// samplingDefaults are the sampling keys of a generation config as compact
// JSON (keys sorted), or "" when it has none.
func samplingDefaults(g map[string]json.RawMessage) string {
	d := map[string]json.RawMessage{}
	for _, k := range samplingKeys {
		if v, ok := g[k]; ok && string(v) != "null" {
			d[k] = v
		}
	}
	if len(d) == 0 {
		return ""
	}
	b, err := json.Marshal(d)
	if err != nil {
		return ""
	}
	return string(b)
}
