package pipeline

import (
	"context"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/internal/reqlog"
	"github.com/mmgate/mmgate/internal/routing"
	"github.com/mmgate/mmgate/openai"
)

// Completion runs a text completion (POST /v1/completions): the prompt is
// tokenized with the model's tokenizer and no chat template (or taken as
// token ids), then generated with the same sampling and streaming as chat.
func (p *Pipeline) Completion(ctx context.Context, req *openai.CompletionRequest, rid string) (openai.Generation, error) {
	st := &gatewayStage{p: p, rid: rid, times: &stageTimes{}, key: routing.RoutingKey(routing.SessionKey(ctx), req.Prompt)}
	r, err := p.front.completion(ctx, req, st)
	if err != nil {
		st.release()
		return nil, err
	}
	forWorker(&r.Sampling, st.w, r.Assets)
	gr := &protocol.Request{ID: workerRequestID(rid), InputIDs: r.IDs, Text: r.Text, Stream: true, Sampling: r.Sampling}
	reqlog.From(ctx, p.log).Debug("completion", "model", r.Model, "worker", st.w.URL(), "prompt_tokens", len(r.IDs), "n", gr.Choices())
	stream, err := p.generate(ctx, st.w, gr, nil, st.times)
	if err != nil {
		return nil, err
	}
	return newGeneration(p, r.Assets, req.Params, stream, r.Model, len(r.IDs), gr.Choices(), st.times, outputMode{}), nil
}
