package sglang

import (
	"fmt"
	"math"
	"slices"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/smgwire"
	sglangpb "github.com/mmgate/mmgate/proto/sglang"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// jsonObject is the schema SMG sends for response_format json_object.
const jsonObject = `{"type":"object"}`

// Encode builds the GenerateRequest of req. Errors wrap
// protocol.ErrUnsupportedParam (a parameter the protocol cannot carry) or
// protocol.ErrBadRequest (media the message cannot describe).
func Encode(req *protocol.Request) (*sglangpb.GenerateRequest, error) {
	sp, err := samplingParams(&req.Sampling)
	if err != nil {
		return nil, err
	}
	if req.Sampling.TopLogprobs < 0 || req.Sampling.TopLogprobs > math.MaxInt32 {
		return nil, fmt.Errorf("sglang: top_logprobs %d: %w", req.Sampling.TopLogprobs, protocol.ErrUnsupportedParam)
	}
	gr := &sglangpb.GenerateRequest{
		RequestId:       req.ID,
		Tokenized:       &sglangpb.TokenizedInput{OriginalText: req.Text, InputIds: req.InputIDs},
		SamplingParams:  sp,
		ReturnLogprob:   req.Sampling.Logprobs,
		LogprobStartLen: -1,
		TopLogprobsNum:  int32(req.Sampling.TopLogprobs),
		Stream:          req.Stream,
	}
	if len(req.Media) > 0 {
		if gr.MmInputs, err = mmInputs(req.Media); err != nil {
			return nil, fmt.Errorf("sglang: %w", err)
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

// samplingParams maps the neutral sampling parameters, every value
// explicit.
func samplingParams(s *protocol.Sampling) (*sglangpb.SamplingParams, error) {
	if s.Seed != nil {
		return nil, fmt.Errorf("sglang: seed: SGLang's gRPC servicer does not seed sampling: %w", protocol.ErrUnsupportedParam)
	}
	topK := or(s.TopK, -1)
	if topK < 1 {
		topK = -1
	}
	sp := &sglangpb.SamplingParams{
		Temperature:                or(s.Temperature, 1),
		TopP:                       or(s.TopP, 1),
		TopK:                       topK,
		MinP:                       or(s.MinP, 0),
		FrequencyPenalty:           or(s.FrequencyPenalty, 0),
		PresencePenalty:            or(s.PresencePenalty, 0),
		RepetitionPenalty:          or(s.RepetitionPenalty, 1),
		MaxNewTokens:               s.MaxTokens,
		MinNewTokens:               s.MinTokens,
		StopTokenIds:               stopIDs(s),
		SkipSpecialTokens:          s.SkipSpecialTokens,
		SpacesBetweenSpecialTokens: true,
		IgnoreEos:                  s.IgnoreEOS,
		N:                          max(1, s.N),
		LogitBias:                  smgwire.StringBias(s.LogitBias),
	}
	switch c := s.Constraint; c.Kind {
	case protocol.NoConstraint:
	case protocol.JSONSchema:
		sp.Constraint = &sglangpb.SamplingParams_JsonSchema{JsonSchema: c.Value}
	case protocol.JSONObject:
		sp.Constraint = &sglangpb.SamplingParams_JsonSchema{JsonSchema: jsonObject}
	case protocol.Regex:
		sp.Constraint = &sglangpb.SamplingParams_Regex{Regex: c.Value}
	case protocol.Grammar:
		sp.Constraint = &sglangpb.SamplingParams_EbnfGrammar{EbnfGrammar: c.Value}
	default:
		return nil, fmt.Errorf("sglang: a %s constraint: %w", c.Kind, protocol.ErrUnsupportedParam)
	}
	return sp, nil
}

// stopIDs are the stop ids and the ids of the stop strings that are one
// token, each once.
func stopIDs(s *protocol.Sampling) []uint32 {
	out := slices.Clone(s.StopTokenIDs)
	for _, ids := range s.StopTokens {
		if len(ids) == 1 && !slices.Contains(out, ids[0]) {
			out = append(out, ids[0])
		}
	}
	return out
}

// mmInputs joins the images into one MultimodalInputs.
func mmInputs(items []protocol.MediaItem) (*sglangpb.MultimodalInputs, error) {
	f, err := smgwire.Flatten(items)
	if err != nil {
		return nil, err
	}
	if f.Modality != vision.Image {
		return nil, fmt.Errorf("a %v item: SGLang's protocol takes images only: %w", f.Modality, protocol.ErrUnsupportedParam)
	}
	if f.Input.DType != tensor.Float32 {
		return nil, fmt.Errorf("%v image inputs (SGLang reads float32): %w", f.Input.DType, protocol.ErrUnsupportedParam)
	}
	mm := &sglangpb.MultimodalInputs{
		Modalities:           []string{"image"},
		ImTokenId:            f.PadToken,
		ModelSpecificTensors: make(map[string]*sglangpb.TensorData, len(f.Side)),
	}
	if mm.PixelValues, err = tensorData(f.Input); err != nil {
		return nil, err
	}
	for _, t := range f.Side {
		if mm.ModelSpecificTensors[t.Name], err = tensorData(t); err != nil {
			return nil, err
		}
	}
	for i := range items {
		it := &items[i]
		if it.Raw == nil {
			return nil, fmt.Errorf("item %d: no raw image bytes: %w", i, protocol.ErrBadRequest)
		}
		mm.ImageData = append(mm.ImageData, it.Raw)
		if len(it.Placeholders) == 0 {
			return nil, fmt.Errorf("item %d: no placeholder range: %w", i, protocol.ErrBadRequest)
		}
		for _, r := range it.Placeholders {
			if r.Offset < 0 || r.Length <= 0 || r.Offset > math.MaxUint32 || r.Length > math.MaxUint32 {
				return nil, fmt.Errorf("item %d: placeholder range %+v: %w", i, r, protocol.ErrBadRequest)
			}
			mm.MmPlaceholders = append(mm.MmPlaceholders, &sglangpb.PlaceholderRange{Offset: uint32(r.Offset), Length: uint32(r.Length)})
		}
	}
	return mm, nil
}

// tensorData is t as the message's TensorData: inline bytes, float32 or
// int64 (the servicer reads any other dtype as float32).
func tensorData(t protocol.Tensor) (*sglangpb.TensorData, error) {
	if t.Payload.Shm != nil {
		return nil, fmt.Errorf("%s: in shared memory, which the protocol cannot carry: %w", t.Name, protocol.ErrBadRequest)
	}
	if t.DType != tensor.Float32 && t.DType != tensor.Int64 {
		return nil, fmt.Errorf("%s: dtype %v is not float32 or int64: %w", t.Name, t.DType, protocol.ErrBadRequest)
	}
	dims, err := smgwire.Dims(t.Shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", t.Name, protocol.ErrBadRequest, err)
	}
	return &sglangpb.TensorData{Data: t.Payload.Inline, Shape: dims, Dtype: t.DType.String()}, nil
}
