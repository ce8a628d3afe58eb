package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/internal/server"
	"github.com/mmgate/mmgate/prompt"
)

var _ server.Completer = (*Pipeline)(nil)

// Completion runs a text completion (POST /v1/completions): the prompt is
// tokenized with the model's tokenizer and no chat template (or taken as
// token ids), then generated with the same sampling and streaming as chat.
func (p *Pipeline) Completion(ctx context.Context, req *server.CompletionRequest, rid string) (server.Generation, error) {
	log := server.Logger(ctx, p.log)
	times := &stageTimes{}
	params := req.Params
	model, err := p.resolveModel(params.Model)
	if err != nil {
		return nil, err
	}
	if !p.known(model) {
		return nil, fmt.Errorf("pipeline: model %q: %w", model, engine.ErrModelNotFound)
	}
	a, err := p.assetsFor(ctx, model)
	if err != nil {
		return nil, err
	}
	w, err := p.opts.Engine.Pick(model, nil)
	if err != nil {
		return nil, err
	}

	t0 := time.Now()
	ids := req.PromptIDs
	text := req.Prompt
	if ids == nil {
		ids = a.Tokenizer.Encode(req.Prompt)
	} else {
		limit := a.Tokenizer.MaxID()
		for i, id := range ids {
			if int(id) >= limit {
				return nil, &prompt.Error{Kind: prompt.ErrBadRequest, Param: "prompt", Msg: fmt.Sprintf("token id %d at position %d is outside the vocabulary (%d ids)", id, i, limit)}
			}
		}
		text = a.Tokenizer.Decode(ids, false)
	}
	if len(ids) == 0 {
		return nil, &prompt.Error{Kind: prompt.ErrBadRequest, Param: "prompt", Msg: "the prompt has no tokens"}
	}
	p.observe(times, "tokenize", time.Since(t0))

	sp, err := sampling(params, len(ids), contextLength(w, a), a.EOS)
	if err != nil {
		return nil, err
	}
	forWorker(&sp, w, a)
	gr := &protocol.Request{ID: workerRequestID(rid), InputIDs: ids, Text: text, Stream: true, Sampling: sp}
	log.Debug("completion", "model", model, "worker", w.URL(), "prompt_tokens", len(ids), "n", gr.Choices())

	stream, err := p.generate(ctx, w, gr, nil, times)
	if err != nil {
		return nil, err
	}
	return newGeneration(p, a, params, stream, model, len(ids), gr.Choices(), times, outputMode{}), nil
}
