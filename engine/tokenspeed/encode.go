package tokenspeed

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/smgwire"
	"github.com/mmgate/mmgate/engine/tokenspeed/tensordata"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
)

// Encode builds the GenerateRequest of req. Errors wrap
// protocol.ErrUnsupportedParam (a choice constraint) or protocol.ErrBadRequest
// (a range, modality or tensor the message cannot describe).
func Encode(req *protocol.Request) (*schedulerpb.GenerateRequest, error) {
	sp, err := samplingParams(&req.Sampling)
	if err != nil {
		return nil, err
	}
	gr := &schedulerpb.GenerateRequest{
		RequestId:      req.ID,
		Tokenized:      &schedulerpb.TokenizedInput{InputIds: req.InputIDs, OriginalText: req.Text},
		SamplingParams: sp,
		ReturnLogprob:  req.Sampling.Logprobs,
		TopLogprobsNum: int32(min(req.Sampling.TopLogprobs, math.MaxInt32)),
		Stream:         req.Stream,
	}
	if len(req.Media) > 0 {
		gr.MmInputs = &schedulerpb.MultimodalInputs{Items: make([]*schedulerpb.MultimodalItem, 0, len(req.Media))}
		for i := range req.Media {
			it, err := mediaItem(&req.Media[i])
			if err != nil {
				return nil, fmt.Errorf("tokenspeed: media item %d: %w", i, err)
			}
			gr.MmInputs.Items = append(gr.MmInputs.Items, it)
		}
	}
	return gr, nil
}

// samplingParams maps the neutral sampling parameters.
func samplingParams(s *protocol.Sampling) (*schedulerpb.SamplingParams, error) {
	sp := &schedulerpb.SamplingParams{
		Temperature:       s.Temperature,
		TopP:              s.TopP,
		TopK:              s.TopK,
		MinP:              s.MinP,
		FrequencyPenalty:  s.FrequencyPenalty,
		PresencePenalty:   s.PresencePenalty,
		RepetitionPenalty: s.RepetitionPenalty,
		MaxNewTokens:      s.MaxTokens,
		MinNewTokens:      s.MinTokens,
		Stop:              s.Stop,
		StopTokenIds:      s.StopTokenIDs,
		IgnoreEos:         s.IgnoreEOS,
		SkipSpecialTokens: s.SkipSpecialTokens,
		N:                 max(1, s.N),
		LogitBias:         smgwire.StringBias(s.LogitBias),
	}
	switch c := s.Constraint; c.Kind {
	case protocol.NoConstraint:
	case protocol.JSONSchema:
		sp.Constraint = &schedulerpb.SamplingParams_JsonSchema{JsonSchema: c.Value}
	case protocol.JSONObject:
		sp.Constraint = &schedulerpb.SamplingParams_JsonSchema{JsonSchema: `{"type":"object"}`}
	case protocol.Regex:
		sp.Constraint = &schedulerpb.SamplingParams_Regex{Regex: c.Value}
	case protocol.Grammar:
		sp.Constraint = &schedulerpb.SamplingParams_EbnfGrammar{EbnfGrammar: c.Value}
	default:
		return nil, fmt.Errorf("tokenspeed: a %s constraint: %w", c.Kind, protocol.ErrUnsupportedParam)
	}
	if s.Seed != nil {
		// The message has no seed field; SMG's servicer reads it here.
		cp, err := structpb.NewStruct(map[string]any{"seed": float64(*s.Seed)})
		if err != nil {
			return nil, fmt.Errorf("tokenspeed: seed: %v: %w", err, protocol.ErrBadRequest)
		}
		sp.CustomParams = cp
	}
	return sp, nil
}

// mediaItem maps one media item.
func mediaItem(it *protocol.MediaItem) (*schedulerpb.MultimodalItem, error) {
	mod, ok := smgwire.ModalityOut(it.Modality)
	if !ok {
		return nil, fmt.Errorf("modality %v: %w", it.Modality, protocol.ErrBadRequest)
	}
	enc, err := tensordata.Encode(it.Input.DType, it.Input.Shape, it.Input.Payload)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", it.Input.Name, protocol.ErrBadRequest, err)
	}
	mi := &schedulerpb.MultimodalItem{
		Modality:             mod,
		ContentHash:          it.Hash,
		EncoderInput:         enc,
		ModelSpecificTensors: make(map[string]*schedulerpb.TensorData, len(it.Side)),
		PlaceholderTokenId:   it.PadToken,
	}
	for _, t := range it.Side {
		if _, dup := mi.ModelSpecificTensors[t.Name]; dup || t.Name == "" {
			return nil, fmt.Errorf("side tensor name %q empty or repeated: %w", t.Name, protocol.ErrBadRequest)
		}
		if mi.ModelSpecificTensors[t.Name], err = tensordata.Encode(t.DType, t.Shape, t.Payload); err != nil {
			return nil, fmt.Errorf("%s: %w: %w", t.Name, protocol.ErrBadRequest, err)
		}
	}
	for _, r := range it.Placeholders {
		if r.Offset < 0 || r.Length < 0 || r.Offset > math.MaxUint32 || r.Length > math.MaxUint32 {
			return nil, fmt.Errorf("placeholder range %+v: %w", r, protocol.ErrBadRequest)
		}
		mi.Placeholders = append(mi.Placeholders, &schedulerpb.PlaceholderRange{Offset: uint32(r.Offset), Length: uint32(r.Length)})
	}
	return mi, nil
}
