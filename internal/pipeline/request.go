package pipeline

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mmgate/mmgate/prompt"
	commonpb "github.com/mmgate/mmgate/proto/common"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/tensor"
)

// errContext is a prompt that, with its max_tokens, does not fit the model.
func errContext(promptLen, maxTokens, ctxLen int) error {
	msg := fmt.Sprintf("the prompt has %d tokens (media included)", promptLen)
	if maxTokens > 0 {
		msg += fmt.Sprintf(" and max_tokens is %d: %d in all", maxTokens, promptLen+maxTokens)
	}
	return &prompt.Error{Kind: prompt.ErrBadRequest, Param: "max_tokens", Msg: fmt.Sprintf("%s, over the model's context length of %d tokens", msg, ctxLen)}
}

// sampling maps the OpenAI request to the worker's SamplingParams. The prompt
// length and the context length give max_new_tokens when the request has
// none; eos are added to the stop ids unless ignore_eos.
func sampling(req *prompt.Request, promptLen, ctxLen int, eos []uint32) (*schedulerpb.SamplingParams, error) {
	sp := &schedulerpb.SamplingParams{
		Stop:              req.Stop,
		IgnoreEos:         req.IgnoreEOS,
		SkipSpecialTokens: req.SkipSpecial,
		N:                 1,
	}
	if req.N != nil {
		if *req.N < 1 || *req.N > 128 {
			return nil, &prompt.Error{Kind: prompt.ErrBadRequest, Param: "n", Msg: "n must be between 1 and 128"}
		}
		sp.N = uint32(*req.N)
	}
	if ctxLen > 0 {
		if promptLen >= ctxLen {
			return nil, errContext(promptLen, 0, ctxLen)
		}
		maxNew := ctxLen - promptLen
		if req.MaxTokens != nil {
			if *req.MaxTokens < 1 {
				return nil, &prompt.Error{Kind: prompt.ErrBadRequest, Param: "max_tokens", Msg: "max_tokens must be at least 1"}
			}
			if promptLen+*req.MaxTokens > ctxLen {
				return nil, errContext(promptLen, *req.MaxTokens, ctxLen)
			}
			maxNew = *req.MaxTokens
		}
		m := uint32(maxNew)
		sp.MaxNewTokens = &m
	} else if req.MaxTokens != nil {
		m := uint32(*req.MaxTokens)
		sp.MaxNewTokens = &m
	}
	f32 := func(p *float64) *float32 {
		if p == nil {
			return nil
		}
		v := float32(*p)
		return &v
	}
	sp.Temperature = f32(req.Temperature)
	sp.TopP = f32(req.TopP)
	sp.MinP = f32(req.MinP)
	sp.FrequencyPenalty = f32(req.Frequency)
	sp.PresencePenalty = f32(req.Presence)
	sp.RepetitionPenalty = f32(req.Repetition)
	if req.TopK != nil {
		k := int32(*req.TopK)
		sp.TopK = &k
	}
	if req.MinTokens != nil {
		sp.MinNewTokens = uint32(max(0, *req.MinTokens))
	}
	sp.StopTokenIds = append(sp.StopTokenIds, req.StopTokenIDs...)
	if !req.IgnoreEOS {
		for _, id := range eos {
			dup := false
			for _, x := range sp.StopTokenIds {
				dup = dup || x == id
			}
			if !dup {
				sp.StopTokenIds = append(sp.StopTokenIds, id)
			}
		}
	}
	if len(req.LogitBias) > 0 {
		sp.LogitBias = map[string]float32{}
		for k, v := range req.LogitBias {
			if _, err := strconv.ParseUint(k, 10, 32); err != nil {
				return nil, &prompt.Error{Kind: prompt.ErrBadRequest, Param: "logit_bias", Msg: fmt.Sprintf("key %q is not a token id", k)}
			}
			sp.LogitBias[k] = float32(v)
		}
	}
	if err := constraint(sp, req.ResponseFormat); err != nil {
		return nil, err
	}
	if req.Seed != nil {
		cp, err := structpb.NewStruct(map[string]any{"seed": float64(*req.Seed)})
		if err != nil {
			return nil, err
		}
		sp.CustomParams = cp
	}
	return sp, nil
}

// constraint maps response_format to a sampling constraint: json_schema →
// its schema, json_object → any JSON object.
func constraint(sp *schedulerpb.SamplingParams, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(raw, &rf); err != nil {
		return &prompt.Error{Kind: prompt.ErrBadRequest, Param: "response_format", Msg: err.Error()}
	}
	switch rf.Type {
	case "", "text":
	case "json_object":
		sp.Constraint = &schedulerpb.SamplingParams_JsonSchema{JsonSchema: `{"type":"object"}`}
	case "json_schema":
		if rf.JSONSchema == nil || len(rf.JSONSchema.Schema) == 0 {
			return &prompt.Error{Kind: prompt.ErrBadRequest, Param: "response_format.json_schema.schema", Msg: "a schema is required"}
		}
		sp.Constraint = &schedulerpb.SamplingParams_JsonSchema{JsonSchema: string(rf.JSONSchema.Schema)}
	default:
		return &prompt.Error{Kind: prompt.ErrBadRequest, Param: "response_format.type", Msg: fmt.Sprintf("%q is not text, json_object or json_schema", rf.Type)}
	}
	return nil
}

// mmInputs assembles the multimodal items: encoder input, the family's side
// tensors, placeholder ranges and pad id, content hash.
func mmInputs(items []prepared, res *prompt.Result, sp *prompt.Specials) *schedulerpb.MultimodalInputs {
	if len(items) == 0 {
		return nil
	}
	out := &schedulerpb.MultimodalInputs{}
	for i, it := range items {
		mi := &schedulerpb.MultimodalItem{
			Modality:             commonpb.Modality_IMAGE,
			ContentHash:          append([]byte(nil), it.hash[:]...),
			EncoderInput:         it.encoder,
			ModelSpecificTensors: make(map[string]*schedulerpb.TensorData, len(it.side)),
		}
		if it.video != nil {
			mi.Modality = commonpb.Modality_VIDEO
		}
		for _, t := range it.side {
			mi.ModelSpecificTensors[t.Name] = inlineTensor(t.Tensor)
		}
		if pad, ok := sp.Pad[it.modality]; ok {
			id := pad.ID
			mi.PlaceholderTokenId = &id
		}
		for _, ph := range res.Placeholders {
			if ph.Item == i {
				mi.Placeholders = append(mi.Placeholders, &schedulerpb.PlaceholderRange{Offset: uint32(ph.Offset), Length: uint32(ph.Length)})
			}
		}
		out.Items = append(out.Items, mi)
	}
	return out
}

// inlineTensor is a side tensor sent inline.
func inlineTensor(t tensor.Tensor) *schedulerpb.TensorData {
	shape := make([]uint32, len(t.Shape))
	for i, d := range t.Shape {
		shape[i] = uint32(d)
	}
	return &schedulerpb.TensorData{Shape: shape, Dtype: t.DType.String(), Payload: &schedulerpb.TensorData_Inline{Inline: t.Data}}
}

// workerRequestID is the id a request has at the worker: the gateway's
// request id (the client's X-Request-Id, when it sent one) as a prefix, made
// unique, so that two clients sending the same id never collide.
func workerRequestID(rid string) string {
	var b [6]byte
	rand.Read(b[:])
	return rid + "-" + hex.EncodeToString(b[:])
}
