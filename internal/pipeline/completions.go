package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/internal/server"
	"github.com/mmgate/mmgate/prompt"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
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
	d := time.Since(t0)
	times.add("tokenize", d)
	p.m.stage.WithLabelValues("tokenize").Observe(d.Seconds())

	ctxLen := int(w.Info().Model.GetMaxContextLength())
	if ctxLen <= 0 {
		ctxLen = a.ContextLength
	}
	sp, err := sampling(params, len(ids), ctxLen, a.EOS)
	if err != nil {
		return nil, err
	}
	gr := &schedulerpb.GenerateRequest{
		RequestId:      workerRequestID(rid),
		Tokenized:      &schedulerpb.TokenizedInput{InputIds: ids, OriginalText: text},
		SamplingParams: sp,
		Stream:         true,
		ReturnLogprob:  params.Logprobs,
	}
	if params.TopLogprobs != nil {
		gr.TopLogprobsNum = int32(*params.TopLogprobs)
	}
	log.Debug("completion", "model", model, "worker", w.URL(), "prompt_tokens", len(ids), "n", sp.GetN())

	t1 := time.Now()
	stream, err := p.opts.Engine.Generate(ctx, w, gr, nil)
	if err != nil {
		return nil, err
	}
	d = time.Since(t1)
	times.add("transport", d)
	p.m.stage.WithLabelValues("transport").Observe(d.Seconds())
	return newGeneration(p, a, params, stream, model, len(ids), int(sp.N), times, outputMode{}), nil
}
