package refworker

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	commonpb "github.com/mmgate/mmgate/proto/common"
)

// ErrModel is returned for a model folder the worker cannot serve.
var ErrModel = errors.New("refworker: bad model folder")

// modelInfo is what the worker reads from a model folder's config.json and
// generation_config.json.
type modelInfo struct {
	ModelType      string
	Architectures  []string
	ContextLength  int
	VocabSize      int
	DType          string
	EOS            []int32
	BOS, Pad       int32
	MergeSize      int
	ImageTokenID   int64 // -1 when absent
	VideoTokenID   int64
	Modalities     []commonpb.Modality
	SupportsVision bool
}

// configJSON is the subset of config.json the worker reads. Qwen3-VL keeps the
// text model's fields under text_config; older models keep them at the top.
type configJSON struct {
	ModelType       string          `json:"model_type"`
	Architectures   []string        `json:"architectures"`
	ImageTokenID    *int64          `json:"image_token_id"`
	VideoTokenID    *int64          `json:"video_token_id"`
	MaxPositionEmb  int             `json:"max_position_embeddings"`
	VocabSize       int             `json:"vocab_size"`
	TorchDType      string          `json:"torch_dtype"`
	DType           string          `json:"dtype"`
	EOSTokenID      json.RawMessage `json:"eos_token_id"`
	BOSTokenID      *int32          `json:"bos_token_id"`
	PadTokenID      *int32          `json:"pad_token_id"`
	TextConfig      *configJSON     `json:"text_config"`
	VisionConfig    *visionConfig   `json:"vision_config"`
	AudioConfig     json.RawMessage `json:"audio_config"`
	AudioTokenIndex *int64          `json:"audio_token_id"`
}

type visionConfig struct {
	SpatialMergeSize int `json:"spatial_merge_size"`
}

// loadModelInfo reads dir/config.json (required) and
// dir/generation_config.json (optional; its eos ids win).
func loadModelInfo(dir string) (*modelInfo, error) {
	var c configJSON
	if err := readJSON(filepath.Join(dir, "config.json"), &c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	m := &modelInfo{
		ModelType:     c.ModelType,
		Architectures: c.Architectures,
		ImageTokenID:  -1,
		VideoTokenID:  -1,
		MergeSize:     2,
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
	if c.ImageTokenID != nil {
		m.ImageTokenID = *c.ImageTokenID
	}
	if c.VideoTokenID != nil {
		m.VideoTokenID = *c.VideoTokenID
	}
	if c.VisionConfig != nil {
		if c.VisionConfig.SpatialMergeSize > 0 {
			m.MergeSize = c.VisionConfig.SpatialMergeSize
		}
		m.SupportsVision = true
		if m.ImageTokenID >= 0 {
			m.Modalities = append(m.Modalities, commonpb.Modality_IMAGE)
		}
		if m.VideoTokenID >= 0 {
			m.Modalities = append(m.Modalities, commonpb.Modality_VIDEO)
		}
	}
	if len(c.AudioConfig) > 0 && string(c.AudioConfig) != "null" {
		m.Modalities = append(m.Modalities, commonpb.Modality_AUDIO)
	}

	var g struct {
		EOSTokenID json.RawMessage `json:"eos_token_id"`
	}
	switch err := readJSON(filepath.Join(dir, "generation_config.json"), &g); {
	case err == nil:
		if ids, err := parseIDs(g.EOSTokenID); err == nil && len(ids) > 0 {
			m.EOS = mergeIDs(ids, m.EOS)
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	if m.ContextLength <= 0 {
		m.ContextLength = 32768
	}
	return m, nil
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
