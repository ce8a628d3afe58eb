package pipeline

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/vision"
)

// errContext is a prompt that, with its max_tokens, does not fit the model.
func errContext(promptLen, maxTokens, ctxLen int) error {
	msg := fmt.Sprintf("the prompt has %d tokens (media included)", promptLen)
	if maxTokens > 0 {
		msg += fmt.Sprintf(" and max_tokens is %d: %d in all", maxTokens, promptLen+maxTokens)
	}
	return openai.BadRequest("max_tokens", fmt.Sprintf("%s, over the model's context length of %d tokens", msg, ctxLen))
}

// Budget says how max_tokens is resolved against the model's context
// length. Either way a prompt that fills the context on its own is
// refused, and without a context length the request's max_tokens (or none)
// is sent as it is.
type Budget uint8

const (
	// BudgetStrict is the gateway's rule: max_tokens defaults to what the
	// context leaves after the prompt, and a max_tokens that does not fit
	// is refused (400).
	BudgetStrict Budget = iota
	// BudgetClamp is vLLM's render rule: max_tokens is the smaller of the
	// request's and what the context leaves, never refused.
	BudgetClamp
)

// sampling maps the request's parameters to the neutral sampling
// parameters. The prompt length and the context length give max_tokens as
// b says; eos are added to the stop ids unless ignore_eos.
func sampling(p *openai.Params, promptLen, ctxLen int, eos []uint32, b Budget) (protocol.Sampling, error) {
	maxNew, err := maxTokens(p, promptLen, ctxLen, b)
	if err != nil {
		return protocol.Sampling{}, err
	}
	f32 := func(p *float64) *float32 {
		if p == nil {
			return nil
		}
		v := float32(*p)
		return &v
	}
	sp := protocol.Sampling{
		Stop:              p.Stop,
		IgnoreEOS:         p.IgnoreEOS,
		SkipSpecialTokens: p.SkipSpecial,
		N:                 uint32(p.Choices()),
		Logprobs:          p.Logprobs,
		MaxTokens:         maxNew,
		Temperature:       f32(p.Temperature),
		TopP:              f32(p.TopP),
		MinP:              f32(p.MinP),
		FrequencyPenalty:  f32(p.Frequency),
		PresencePenalty:   f32(p.Presence),
		RepetitionPenalty: f32(p.Repetition),
		Constraint:        constraint(p.ResponseFormat),
	}
	if p.Seed != nil {
		seed := *p.Seed
		sp.Seed = &seed
	}
	if p.TopLogprobs != nil {
		sp.TopLogprobs = *p.TopLogprobs
	}
	if p.TopK != nil {
		k := int32(*p.TopK)
		sp.TopK = &k
	}
	if p.MinTokens != nil {
		sp.MinTokens = uint32(max(0, *p.MinTokens))
	}
	sp.StopTokenIDs = append(sp.StopTokenIDs, p.StopTokenIDs...)
	if !p.IgnoreEOS {
		for _, id := range eos {
			if !slices.Contains(sp.StopTokenIDs, id) {
				sp.StopTokenIDs = append(sp.StopTokenIDs, id)
			}
		}
	}
	if len(p.LogitBias) > 0 {
		sp.LogitBias = make(map[uint32]float32, len(p.LogitBias))
		for id, v := range p.LogitBias {
			sp.LogitBias[id] = float32(v)
		}
	}
	return sp, nil
}

// maxTokens is the cap on new tokens as b resolves it; nil when neither
// the request nor the context length gives one.
func maxTokens(p *openai.Params, promptLen, ctxLen int, b Budget) (*uint32, error) {
	if ctxLen <= 0 {
		if p.MaxTokens == nil {
			return nil, nil
		}
		m := uint32(*p.MaxTokens)
		return &m, nil
	}
	if promptLen >= ctxLen {
		return nil, errContext(promptLen, 0, ctxLen)
	}
	maxNew := ctxLen - promptLen
	if p.MaxTokens != nil {
		switch {
		case *p.MaxTokens <= maxNew:
			maxNew = *p.MaxTokens
		case b == BudgetStrict:
			return nil, errContext(promptLen, *p.MaxTokens, ctxLen)
		}
	}
	m := uint32(maxNew)
	return &m, nil
}

// constraint maps response_format to a sampling constraint: json_schema →
// its schema, json_object → any JSON object.
func constraint(rf openai.ResponseFormat) protocol.Constraint {
	switch rf.Type {
	case "json_object":
		return protocol.Constraint{Kind: protocol.JSONObject}
	case "json_schema":
		return protocol.Constraint{Kind: protocol.JSONSchema, Value: string(rf.Schema)}
	}
	return protocol.Constraint{}
}

// forWorker completes the sampling parameters for the worker: the model's
// sampling defaults it reports fill the parameters the request left out
// (as SMG applies them), and each stop string's token ids go along for a
// protocol that matches stops by id only.
func forWorker(sp *protocol.Sampling, w *engine.Worker, a *Assets) {
	if info := w.Info(); info != nil {
		info.Defaults.Apply(sp)
	}
	sp.StopTokens = stopTokens(a.Tokenizer, sp.Stop)
}

// stopTokens are the token ids of each stop string, without the
// tokenizer's post-processor specials (SMG encodes stops with
// add_special_tokens=false): Gemma's <bos> would make every stop string
// several tokens long.
func stopTokens(tok prompt.Tokenizer, stops []string) [][]uint32 {
	var out [][]uint32
	for _, s := range stops {
		out = append(out, prompt.EncodeChat(tok, s))
	}
	return out
}

// mediaItems are the request's media items in prompt order.
func mediaItems(items []prepared, res *prompt.Result, a *Assets, exp []prompt.Expansion) []protocol.MediaItem {
	out := make([]protocol.MediaItem, len(items))
	for i, it := range items {
		out[i] = mediaItem(i, it, res, a, exp[i])
	}
	return out
}

// mediaItem is item i as the engine takes it: the family's side tensors and
// field layout, placeholder ranges and pad id, structural range, content
// hash and cache key (the gateway sets the encoder input and the media
// bytes once it has processed the item).
func mediaItem(i int, it prepared, res *prompt.Result, a *Assets, e prompt.Expansion) protocol.MediaItem {
	mi := protocol.MediaItem{
		Modality: vision.Image,
		Hash:     append([]byte(nil), it.hash[:]...),
		CacheKey: it.key,
		Side:     make([]protocol.Tensor, len(it.side)),
	}
	if it.video != nil {
		mi.Modality = vision.Video
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
