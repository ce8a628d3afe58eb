package pipeline

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/internal/server"
	"github.com/mmgate/mmgate/prompt"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/vision"
)

// Chat runs a chat request up to the worker's first response and returns the
// generation to read events from.
func (p *Pipeline) Chat(ctx context.Context, req *prompt.Request, rid string) (server.Generation, error) {
	times := &stageTimes{}
	model, err := p.resolveModel(req.Model)
	if err != nil {
		return nil, err
	}
	// The model must exist before its files are fetched.
	if !p.known(model) {
		return nil, fmt.Errorf("pipeline: model %q: %w", clip(model, 128), engine.ErrModelNotFound)
	}
	a, err := p.assetsFor(ctx, model)
	if err != nil {
		return nil, err
	}
	tmpl, err := a.Templates.Select(len(req.Tools) > 0 && string(req.Tools) != "null")
	if err != nil {
		return nil, err
	}
	plan, err := prompt.Build(req, prompt.Options{
		Specials:      a.Specials,
		MediaOrder:    p.opts.MediaOrder,
		StringContent: !tmpl.IteratesContentParts(),
		MaxMediaItems: p.opts.MaxMediaItems,
		EnableVideo:   a.VideoPrep != nil,
	})
	if err != nil {
		return nil, err
	}
	// Capability check before any fetch.
	w, err := p.opts.Engine.Pick(model, modalities(plan))
	if err != nil {
		return nil, err
	}

	var batch *shm.Batch
	if p.opts.Pool != nil && len(plan.Media) > 0 {
		batch = p.opts.Pool.NewBatch(ctx, rid)
	}
	release := func() {
		if batch != nil {
			batch.Release()
		}
	}
	items, err := p.prepareMedia(ctx, a, plan, w, batch, ImageOverrides(req), VideoOverrides(req), times)
	if err != nil {
		release()
		return nil, err
	}

	t0 := time.Now()
	exp := expansions(items, a)
	res, err := prompt.Render(tmpl, a.Tokenizer, a.Specials, plan, exp)
	if err != nil {
		release()
		return nil, err
	}
	p.observe(times, "tokenize", time.Since(t0))

	ctxLen := int(w.Info().Model.GetMaxContextLength())
	if ctxLen <= 0 {
		ctxLen = a.ContextLength
	}
	sp, err := sampling(req, len(res.IDs), ctxLen, a.EOS)
	if err != nil {
		release()
		return nil, err
	}
	out := outputFor(a, req, tmpl, res.Text)
	if out.forced, err = forcedToolChoice(req); err != nil {
		release()
		return nil, err
	}
	out.forced.constrain(sp)
	gr := &schedulerpb.GenerateRequest{
		RequestId:      workerRequestID(rid),
		Tokenized:      &schedulerpb.TokenizedInput{InputIds: res.IDs, OriginalText: res.Text},
		SamplingParams: sp,
		Stream:         true,
		ReturnLogprob:  req.Logprobs,
		MmInputs:       mmInputs(items, res, a.Specials),
	}
	if req.TopLogprobs != nil {
		gr.TopLogprobsNum = int32(*req.TopLogprobs)
	}

	t1 := time.Now()
	stream, err := p.opts.Engine.Generate(ctx, w, gr, batch)
	if err != nil {
		return nil, err // Generate released the batch
	}
	p.observe(times, "transport", time.Since(t1))
	return newGeneration(p, a, req, stream, model, len(res.IDs), int(sp.N), times, out), nil
}

// known reports whether a worker (healthy or not) serves model.
func (p *Pipeline) known(model string) bool {
	for _, m := range p.opts.Engine.Models() {
		if m.Name == model {
			return true
		}
	}
	return false
}

// resolveModel picks the served model: the request's, or the only one.
func (p *Pipeline) resolveModel(name string) (string, error) {
	if name != "" {
		return name, nil
	}
	ms := p.opts.Engine.Models()
	if len(ms) == 1 {
		return ms[0].Name, nil
	}
	return "", &prompt.Error{Kind: prompt.ErrBadRequest, Param: "model", Msg: "model is required"}
}

func modalities(plan *prompt.Plan) []vision.Modality {
	var out []vision.Modality
	seen := map[prompt.Modality]bool{}
	for _, it := range plan.Media {
		if seen[it.Modality] {
			continue
		}
		seen[it.Modality] = true
		switch it.Modality {
		case prompt.Image:
			out = append(out, vision.Image)
		case prompt.Video:
			out = append(out, vision.Video)
		case prompt.Audio:
			out = append(out, vision.Audio)
		}
	}
	return out
}

// clip shortens s for messages and logs.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
