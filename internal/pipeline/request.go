package pipeline

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/vision"
)

// errContext is a prompt that, with its max_tokens, does not fit the model.
func errContext(promptLen, maxTokens, ctxLen int) error {
	msg := fmt.Sprintf("the prompt has %d tokens (media included)", promptLen)
	if maxTokens > 0 {
		msg += fmt.Sprintf(" and max_tokens is %d: %d in all", maxTokens, promptLen+maxTokens)
	}
	return &prompt.Error{Kind: prompt.ErrBadRequest, Param: "max_tokens", Msg: fmt.Sprintf("%s, over the model's context length of %d tokens", msg, ctxLen)}
}

// sampling maps the OpenAI request to the neutral sampling parameters. The
// prompt length and the context length give max_tokens when the request has
// none; eos are added to the stop ids unless ignore_eos.
func sampling(req *prompt.Request, promptLen, ctxLen int, eos []uint32) (protocol.Sampling, error) {
	sp := protocol.Sampling{
		Stop:              req.Stop,
		IgnoreEOS:         req.IgnoreEOS,
		SkipSpecialTokens: req.SkipSpecial,
		N:                 1,
		Logprobs:          req.Logprobs,
	}
	if req.N != nil {
		if *req.N < 1 || *req.N > 128 {
			return sp, &prompt.Error{Kind: prompt.ErrBadRequest, Param: "n", Msg: "n must be between 1 and 128"}
		}
		sp.N = uint32(*req.N)
	}
	if req.TopLogprobs != nil {
		sp.TopLogprobs = *req.TopLogprobs
	}
	maxNew, err := maxTokens(req, promptLen, ctxLen)
	if err != nil {
		return sp, err
	}
	sp.MaxTokens = maxNew
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
		sp.MinTokens = uint32(max(0, *req.MinTokens))
	}
	sp.StopTokenIDs = append(sp.StopTokenIDs, req.StopTokenIDs...)
	if !req.IgnoreEOS {
		for _, id := range eos {
			if !slices.Contains(sp.StopTokenIDs, id) {
				sp.StopTokenIDs = append(sp.StopTokenIDs, id)
			}
		}
	}
	if len(req.LogitBias) > 0 {
		sp.LogitBias = map[uint32]float32{}
		for k, v := range req.LogitBias {
			id, err := strconv.ParseUint(k, 10, 32)
			if err != nil {
				return sp, &prompt.Error{Kind: prompt.ErrBadRequest, Param: "logit_bias", Msg: fmt.Sprintf("key %q is not a token id", k)}
			}
			sp.LogitBias[uint32(id)] = float32(v)
		}
	}
	if sp.Constraint, err = constraint(req.ResponseFormat); err != nil {
		return sp, err
	}
	if req.Seed != nil {
		seed := *req.Seed
		sp.Seed = &seed
	}
	return sp, nil
}

// maxTokens is the cap on new tokens: the request's max_tokens, checked
// against the context length when it is known, else what the context leaves
// after the prompt; nil when neither is known.
func maxTokens(req *prompt.Request, promptLen, ctxLen int) (*uint32, error) {
	if ctxLen <= 0 {
		if req.MaxTokens == nil {
			return nil, nil
		}
		m := uint32(*req.MaxTokens)
		return &m, nil
	}
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
	return &m, nil
}

// constraint maps response_format to a sampling constraint: json_schema →
// its schema, json_object → any JSON object.
func constraint(raw json.RawMessage) (protocol.Constraint, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return protocol.Constraint{}, nil
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(raw, &rf); err != nil {
		return protocol.Constraint{}, &prompt.Error{Kind: prompt.ErrBadRequest, Param: "response_format", Msg: err.Error()}
	}
	switch rf.Type {
	case "", "text":
		return protocol.Constraint{}, nil
	case "json_object":
		return protocol.Constraint{Kind: protocol.JSONObject}, nil
	case "json_schema":
		if rf.JSONSchema == nil || len(rf.JSONSchema.Schema) == 0 {
			return protocol.Constraint{}, &prompt.Error{Kind: prompt.ErrBadRequest, Param: "response_format.json_schema.schema", Msg: "a schema is required"}
		}
		return protocol.Constraint{Kind: protocol.JSONSchema, Value: string(rf.JSONSchema.Schema)}, nil
	}
	return protocol.Constraint{}, &prompt.Error{Kind: prompt.ErrBadRequest, Param: "response_format.type", Msg: fmt.Sprintf("%q is not text, json_object or json_schema", rf.Type)}
}

// forWorker completes the sampling parameters for the worker: the model's
// sampling defaults it reports fill the parameters the request left out
// (as SMG applies them), and each stop string's token ids go along for a
// protocol that matches stops by id only.
func forWorker(sp *protocol.Sampling, w *engine.Worker, a *Assets) {
	if info := w.Info(); info != nil {
		info.Defaults.Apply(sp)
	}
	sp.StopTokens = nil
	for _, s := range sp.Stop {
		sp.StopTokens = append(sp.StopTokens, a.Tokenizer.Encode(s))
	}
}

// mediaItems are the request's media items in prompt order.
func mediaItems(items []prepared, res *prompt.Result, a *Assets, exp []prompt.Expansion) []protocol.MediaItem {
	out := make([]protocol.MediaItem, len(items))
	for i, it := range items {
		out[i] = mediaItem(i, it, res, a, exp[i])
	}
	return out
}

// mediaItem is item i as the engine takes it: encoder input, the family's
// side tensors and field layout, placeholder ranges and pad id, structural
// range, content hash and cache key, and the media bytes when kept.
func mediaItem(i int, it prepared, res *prompt.Result, a *Assets, e prompt.Expansion) protocol.MediaItem {
	mi := protocol.MediaItem{
		Modality: vision.Image,
		Hash:     append([]byte(nil), it.hash[:]...),
		CacheKey: it.key,
		Input:    it.input,
		Side:     make([]protocol.Tensor, len(it.side)),
	}
	if it.video != nil {
		mi.Modality = vision.Video
	}
	if it.raw != nil {
		mi.Raw = it.raw.Bytes
	}
	l := a.Model.Layout(mi.Modality)
	mi.Fields = protocol.Fields{Sizes: l.Sizes, Batched: l.Batched, KeepOnCPU: l.KeepOnCPU}
	sp := a.Specials
	for k, t := range it.side {
		mi.Side[k] = protocol.InlineTensor(t.Name, t.DType, t.Shape, t.Data)
	}
	if pad, ok := sp.Pad[it.modality]; ok {
		id := pad.ID
		mi.PadToken = &id
	}
	for _, ph := range res.Placeholders {
		if ph.Item == i {
			mi.Placeholders = append(mi.Placeholders, protocol.Range{Offset: ph.Offset, Length: ph.Length})
		}
	}
	if st, ok := res.Structural(i, e); ok {
		mi.Structural = protocol.Range{Offset: st.Offset, Length: st.Length}
	}
	return mi
}

// workerRequestID is the id a request has at the worker: the gateway's
// request id (the client's X-Request-Id, when it sent one) as a prefix, made
// unique, so that two clients sending the same id never collide.
func workerRequestID(rid string) string {
	var b [6]byte
	rand.Read(b[:])
	return rid + "-" + hex.EncodeToString(b[:])
}
