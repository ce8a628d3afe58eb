package pipeline

import (
	"context"
	"fmt"

	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/tokenizer"
)

// This file answers: how does vLLM's render API (chat and completions
// render, /tokenize, /detokenize) run on the front half? The same front
// half as the gateway's, with render's media stage (fetch and read
// headers, never decode pixels) and render's max_tokens rule
// (BudgetClamp); /tokenize runs it without any budget. A Pipeline serves
// it for the models of its workers, a Renderer for one loaded folder.

// renderAPI is the render API over a front half and a probe stage. Pipeline
// and Renderer embed it: its methods are theirs.
type renderAPI struct {
	render front // BudgetClamp
	count  front // noBudget: /tokenize
	stage  probeStage
}

func newRenderAPI(f front, st probeStage) renderAPI {
	r := renderAPI{render: f, count: f, stage: st}
	r.render.budget, r.count.budget = BudgetClamp, noBudget
	return r
}

// RenderChat renders a chat request as vLLM's
// /v1/chat/completions/render does (one GenerateRequest); its request_id
// is "chatcmpl-" + rid.
func (r *renderAPI) RenderChat(ctx context.Context, req *openai.ChatRequest, rid string) (*openai.GenerateRequest, error) {
	if _, err := r.render.models.resolve(req.Model); err != nil {
		return nil, err
	}
	if err := renderable(&req.Render, hasMedia(req), true); err != nil {
		return nil, err
	}
	rd, err := r.render.chat(ctx, req, r.stage)
	if err != nil {
		return nil, err
	}
	return generateRequest(rd, &req.Params, "chatcmpl-"+rid)
}

// RenderCompletions renders each prompt of a completions request as vLLM's
// /v1/completions/render does; request ids are "cmpl-" + rid + "-" + the
// prompt's index.
func (r *renderAPI) RenderCompletions(ctx context.Context, reqs []*openai.CompletionRequest, rid string) ([]*openai.GenerateRequest, error) {
	if len(reqs) == 0 {
		return nil, openai.BadRequest("prompt", "is required")
	}
	if _, err := r.render.models.resolve(reqs[0].Params.Model); err != nil {
		return nil, err
	}
	if err := renderable(&reqs[0].Params.Render, false, false); err != nil {
		return nil, err
	}
	out := make([]*openai.GenerateRequest, len(reqs))
	for i, req := range reqs {
		rd, err := r.render.completion(ctx, req, r.stage)
		if err != nil {
			return nil, err
		}
		if out[i], err = generateRequest(rd, req.Params, fmt.Sprintf("cmpl-%s-%d", rid, i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Tokenize answers /tokenize: a prompt's ids, or the ids of chat messages
// as the chat render gives them (generation prompt included by default).
func (r *renderAPI) Tokenize(ctx context.Context, req *openai.TokenizeRequest) (*openai.TokenizeResponse, error) {
	model, a, err := r.count.model(ctx, req.Model)
	if err != nil {
		return nil, err
	}
	var ids []uint32
	if req.Chat != nil {
		if req.AddSpecialTokens {
			return nil, openai.BadRequest("add_special_tokens", "true is not supported with messages: the chat template writes the special tokens")
		}
		rd, err := r.count.chat(ctx, req.Chat, r.stage)
		if err != nil {
			return nil, err
		}
		ids = rd.IDs
	} else {
		ids = a.Tokenizer.EncodeWith(req.Prompt, tokenizer.EncodeOptions{NoSpecialTokens: !req.AddSpecialTokens})
	}
	out := &openai.TokenizeResponse{Count: len(ids), MaxModelLen: r.maxModelLen(model, a), Tokens: ids}
	if req.ReturnTokenStrs {
		out.TokenStrs = make([]string, len(ids))
		for i, id := range ids {
			out.TokenStrs[i], _ = a.Tokenizer.IDToken(id)
		}
	}
	return out, nil
}

// Detokenize answers /detokenize: the text of ids, special tokens kept and
// spaces as decoded.
func (r *renderAPI) Detokenize(ctx context.Context, req *openai.DetokenizeRequest) (*openai.DetokenizeResponse, error) {
	_, a, err := r.count.model(ctx, req.Model)
	if err != nil {
		return nil, err
	}
	limit := a.Tokenizer.MaxID()
	for i, id := range req.Tokens {
		if int(id) >= limit {
			return nil, openai.BadRequest(fmt.Sprintf("tokens[%d]", i), fmt.Sprintf("token id %d is outside the vocabulary (%d ids)", id, limit))
		}
	}
	return &openai.DetokenizeResponse{Prompt: a.Tokenizer.Decode(req.Tokens, false)}, nil
}

// maxModelLen is the context length render budgets model against (vLLM's
// max_model_len): the stage's (a worker's), else the model files'.
func (r *renderAPI) maxModelLen(model string, a *Assets) int {
	return orModel(r.stage.maxModelLen(model), a)
}

// generateRequest is a rendered prompt as vLLM's render answers it.
func generateRequest(rd *Rendered, p *openai.Params, id string) (*openai.GenerateRequest, error) {
	sp, err := vllmSampling(p, rd.Sampling.MaxTokens, rd.Assets.Generation)
	if err != nil {
		return nil, err
	}
	feats, err := vllmFeatures(rd, itemHashes(rd))
	if err != nil {
		return nil, err
	}
	g := &openai.GenerateRequest{
		RequestID: id, TokenIDs: rd.IDs, Features: feats, SamplingParams: sp, OutputMode: "tokens",
		Stream: p.Stream, CacheSalt: p.Render.CacheSalt, Priority: p.Render.Priority,
	}
	if p.Model != "" {
		m := p.Model
		g.Model = &m
	}
	if p.Stream {
		g.StreamOptions = p.Render.StreamOptions
	}
	return g, nil
}

// renderable refuses what render would not give as vLLM gives it: fields
// that change vLLM's prompt and that mmgate does not apply, and processor
// outputs for media (return_mm_kwargs true, vLLM's default), which mmgate
// never serializes.
func renderable(rp *openai.RenderParams, media, chat bool) error {
	switch {
	case rp.UseBeamSearch:
		return openai.BadRequest("use_beam_search", "beam search is not supported by the render endpoint")
	case rp.TruncatePromptTokens != nil:
		return openai.BadRequest("truncate_prompt_tokens", "prompt truncation is not supported by the render endpoint")
	case chat && rp.ChatTemplate != nil:
		return openai.BadRequest("chat_template", "a chat template in the request is not accepted: the model's is used")
	case chat && rp.AddSpecialTokens != nil && *rp.AddSpecialTokens:
		return openai.BadRequest("add_special_tokens", "true is not supported for chat: the chat template writes the special tokens")
	case !chat && rp.AddSpecialTokens != nil && !*rp.AddSpecialTokens:
		return openai.BadRequest("add_special_tokens", "false is not supported for completions")
	case media && rp.ReturnMMKwargs:
		return openai.BadRequest("return_mm_kwargs", `only false is supported: mmgate gives media hashes and placeholders but never serializes processor outputs (vLLM's msgpack kwargs_data); send "return_mm_kwargs": false`)
	}
	return nil
}

// hasMedia reports whether a chat request carries a part other than text.
func hasMedia(req *openai.ChatRequest) bool {
	for _, m := range req.Messages {
		for _, p := range m.Content.Parts {
			if p.Type != "text" {
				return true
			}
		}
	}
	return false
}
