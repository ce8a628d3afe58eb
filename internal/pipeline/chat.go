package pipeline

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/vision"
)

// Chat runs a chat request up to the worker's first response and returns the
// generation to read events from.
func (p *Pipeline) Chat(ctx context.Context, req *openai.ChatRequest, rid string) (openai.Generation, error) {
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
	tmpl, err := a.Templates.Select(req.HasTools())
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
	if err := placeable(w, len(plan.Media)); err != nil {
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

	sp, err := sampling(&req.Params, len(res.IDs), contextLength(w, a), a.EOS)
	if err != nil {
		release()
		return nil, err
	}
	out := outputFor(a, req, tmpl, res.Text)
	if out.forced, err = forcedToolChoice(req); err != nil {
		release()
		return nil, err
	}
	out.forced.constrain(&sp)
	gr := &protocol.Request{
		ID:       workerRequestID(rid),
		InputIDs: res.IDs,
		Text:     res.Text,
		Stream:   true,
		Sampling: sp,
		Media:    mediaItems(items, res, a.Specials, exp),
	}

	stream, err := p.generate(ctx, w, gr, batch, times)
	if err != nil {
		return nil, err // Generate released the batch
	}
	return newGeneration(p, a, &req.Params, stream, model, len(res.IDs), gr.Choices(), times, out), nil
}

// generate sends the request to w (batch holds its segments, nil for none)
// and records the time to the worker's first response.
func (p *Pipeline) generate(ctx context.Context, w *engine.Worker, gr *protocol.Request, batch *shm.Batch, times *stageTimes) (*engine.Stream, error) {
	t0 := time.Now()
	stream, err := p.opts.Engine.Generate(ctx, w, gr, batch)
	if err != nil {
		return nil, err
	}
	p.observe(times, "transport", time.Since(t0))
	return stream, nil
}

// contextLength is the model's context length as the worker reports it,
// else as the model files give it.
func contextLength(w *engine.Worker, a *Assets) int {
	if n := w.Info().ContextLength; n > 0 {
		return n
	}
	return a.ContextLength
}

// placeable refuses media for a worker whose protocol wants them placed in
// a way this pipeline does not place them yet: all items' inputs back to
// back (a flat layout), or the raw media bytes beside the tensors.
func placeable(w *engine.Worker, items int) error {
	c := w.Capabilities()
	switch {
	case items > 1 && c.Layout != protocol.LayoutPerItem:
		return fmt.Errorf("pipeline: worker %s (%s) takes several media items only as one flat tensor: %w", w.URL(), w.Runtime(), engine.ErrUnsupportedParam)
	case items > 0 && c.RawMedia:
		return fmt.Errorf("pipeline: worker %s (%s) wants the raw media bytes: %w", w.URL(), w.Runtime(), engine.ErrUnsupportedParam)
	}
	return nil
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
	return "", openai.BadRequest("model", "is required")
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
