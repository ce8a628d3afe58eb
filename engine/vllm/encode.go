package vllm

import (
	"encoding/hex"
	"fmt"
	"math"
	"slices"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/smgwire"
	vllmpb "github.com/mmgate/mmgate/proto/vllm"
	"github.com/mmgate/mmgate/tensor"
)

// primaryKey is the message's name of the encoder input (the servicer
// renames it, and flat keys naming it, to pixel_values_videos for a video).
const primaryKey = "pixel_values"

// jsonObject is the schema SMG sends for response_format json_object.
const jsonObject = `{"type":"object"}`

// Encode builds the GenerateRequest of req. Errors wrap
// protocol.ErrUnsupportedParam (a parameter the protocol cannot carry) or
// protocol.ErrBadRequest (media the message cannot describe).
func Encode(req *protocol.Request) (*vllmpb.GenerateRequest, error) {
	sp, err := samplingParams(&req.Sampling)
	if err != nil {
		return nil, err
	}
	gr := &vllmpb.GenerateRequest{
		RequestId:      req.ID,
		Input:          &vllmpb.GenerateRequest_Tokenized{Tokenized: &vllmpb.TokenizedInput{OriginalText: req.Text, InputIds: req.InputIDs}},
		SamplingParams: sp,
		Stream:         req.Stream,
	}
	if len(req.Media) > 0 {
		if gr.MmInputs, err = mmInputs(req.Media); err != nil {
			return nil, fmt.Errorf("vllm: %w", err)
		}
	}
	return gr, nil
}

// or is *p, or d when p is nil.
func or[T any](p *T, d T) T {
	if p == nil {
		return d
	}
	return *p
}

// samplingParams maps the neutral sampling parameters.
func samplingParams(s *protocol.Sampling) (*vllmpb.SamplingParams, error) {
	sp := &vllmpb.SamplingParams{
		Temperature:                s.Temperature,
		TopP:                       or(s.TopP, 1),
		TopK:                       uint32(max(0, or(s.TopK, 0))),
		MinP:                       or(s.MinP, 0),
		FrequencyPenalty:           or(s.FrequencyPenalty, 0),
		PresencePenalty:            or(s.PresencePenalty, 0),
		RepetitionPenalty:          or(s.RepetitionPenalty, 1),
		MaxTokens:                  s.MaxTokens,
		MinTokens:                  s.MinTokens,
		Stop:                       s.Stop,
		StopTokenIds:               s.StopTokenIDs,
		SkipSpecialTokens:          s.SkipSpecialTokens,
		SpacesBetweenSpecialTokens: true,
		IgnoreEos:                  s.IgnoreEOS,
		N:                          max(1, s.N),
	}
	if s.Logprobs {
		if s.TopLogprobs < 0 || s.TopLogprobs > math.MaxInt32 {
			return nil, fmt.Errorf("vllm: top_logprobs %d: %w", s.TopLogprobs, protocol.ErrUnsupportedParam)
		}
		n := int32(s.TopLogprobs)
		sp.Logprobs = &n
	}
	if s.Seed != nil {
		if *s.Seed < math.MinInt32 || *s.Seed > math.MaxInt32 {
			return nil, fmt.Errorf("vllm: seed %d is outside the 32-bit range the protocol carries: %w", *s.Seed, protocol.ErrUnsupportedParam)
		}
		seed := int32(*s.Seed)
		sp.Seed = &seed
	}
	if len(s.LogitBias) > 0 {
		sp.LogitBias = make(map[int32]float32, len(s.LogitBias))
		for id, b := range s.LogitBias {
			if id > math.MaxInt32 {
				return nil, fmt.Errorf("vllm: logit_bias token id %d: %w", id, protocol.ErrUnsupportedParam)
			}
			sp.LogitBias[int32(id)] = b
		}
	}
	switch c := s.Constraint; c.Kind {
	case protocol.NoConstraint:
	case protocol.JSONSchema:
		sp.Constraint = &vllmpb.SamplingParams_JsonSchema{JsonSchema: c.Value}
	case protocol.JSONObject:
		sp.Constraint = &vllmpb.SamplingParams_JsonSchema{JsonSchema: jsonObject}
	case protocol.Regex:
		sp.Constraint = &vllmpb.SamplingParams_Regex{Regex: c.Value}
	case protocol.Grammar:
		sp.Constraint = &vllmpb.SamplingParams_Grammar{Grammar: c.Value}
	case protocol.Choice:
		sp.Constraint = &vllmpb.SamplingParams_Choice{Choice: &vllmpb.ChoiceConstraint{Choices: c.Choices}}
	default:
		return nil, fmt.Errorf("vllm: a %s constraint: %w", c.Kind, protocol.ErrUnsupportedParam)
	}
	return sp, nil
}

// mmInputs joins the media items into one MultimodalInputs.
func mmInputs(items []protocol.MediaItem) (*vllmpb.MultimodalInputs, error) {
	f, err := smgwire.Flatten(items)
	if err != nil {
		return nil, err
	}
	mod, ok := smgwire.ModalityOut(f.Modality)
	if !ok || f.Input.DType != tensor.Float32 {
		return nil, fmt.Errorf("%v items with %v inputs (vLLM takes float32 image or video inputs): %w", f.Modality, f.Input.DType, protocol.ErrUnsupportedParam)
	}
	mm := &vllmpb.MultimodalInputs{
		ImTokenId:            f.PadToken,
		BatchedKeys:          batchedKeys(f.Fields),
		KeepOnCpuKeys:        f.Fields.KeepOnCPU,
		Modality:             mod,
		ModelSpecificTensors: make(map[string]*vllmpb.TensorData, len(f.Side)),
	}
	if mm.PixelValues, err = tensorData(f.Input); err != nil {
		return nil, err
	}
	for _, t := range f.Side {
		if mm.ModelSpecificTensors[t.Name], err = tensorData(t); err != nil {
			return nil, err
		}
	}
	if f.Fields.Sizes != "" {
		mm.FlatKeys = map[string]string{primaryKey: f.Fields.Sizes}
	}
	for i := range items {
		r, err := placeholder(&items[i])
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		mm.MmPlaceholders = append(mm.MmPlaceholders, r)
		key := items[i].CacheKey
		if key == "" {
			key = hex.EncodeToString(items[i].Hash)
		}
		if key == "" {
			return nil, fmt.Errorf("item %d has no cache key: %w", i, protocol.ErrBadRequest)
		}
		mm.MmHashes = append(mm.MmHashes, key)
	}
	return mm, nil
}

// batchedKeys are the layout's batched names and, for a batched encoder
// input (no sizes tensor: LLaVA's pixel_values), the input's own, as SMG
// declares it: the servicer shares every tensor it is not told how to
// divide, so each item would get the whole batch.
func batchedKeys(f protocol.Fields) []string {
	if f.Sizes != "" {
		return f.Batched
	}
	return append(slices.Clip(f.Batched), primaryKey)
}

// placeholder is an item's one range: its structural range, else from its
// first pad run to the end of its last.
func placeholder(it *protocol.MediaItem) (*vllmpb.PlaceholderRange, error) {
	r := it.Structural
	if r.Length == 0 && len(it.Placeholders) > 0 {
		first, last := it.Placeholders[0], it.Placeholders[len(it.Placeholders)-1]
		r = protocol.Range{Offset: first.Offset, Length: last.Offset + last.Length - first.Offset}
	}
	if r.Length <= 0 || r.Offset < 0 || r.Offset > math.MaxUint32 || r.Length > math.MaxUint32 {
		return nil, fmt.Errorf("placeholder range %+v: %w", r, protocol.ErrBadRequest)
	}
	return &vllmpb.PlaceholderRange{Offset: uint32(r.Offset), Length: uint32(r.Length)}, nil
}

// tensorData is t as the message's TensorData, its payload as placed.
func tensorData(t protocol.Tensor) (*vllmpb.TensorData, error) {
	switch t.DType {
	case tensor.Float32, tensor.Int64, tensor.Uint32:
	default:
		return nil, fmt.Errorf("%s: dtype %v is not float32, int64 or uint32: %w", t.Name, t.DType, protocol.ErrBadRequest)
	}
	dims, err := smgwire.Dims(t.Shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", t.Name, protocol.ErrBadRequest, err)
	}
	td := &vllmpb.TensorData{Shape: dims, Dtype: t.DType.String()}
	if h := t.Payload.Shm; h != nil {
		td.Payload = &vllmpb.TensorData_Shm{Shm: smgwire.Handle(*h)}
	} else {
		td.Payload = &vllmpb.TensorData_Inline{Inline: t.Payload.Inline}
	}
	return td, nil
}
