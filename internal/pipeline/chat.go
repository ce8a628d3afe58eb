package pipeline

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/internal/server"
	"github.com/mmgate/mmgate/prompt"
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
	caps := w.Capabilities()
	items, err := p.prepareMedia(ctx, newMediaJob(a, w, batch, req, times), plan, caps.Layout)
	if err != nil {
		release()
		return nil, err
	}
	// Media bytes kept for the worker are needed until it has the request.
	defer releaseRaw(items)

	t0 := time.Now()
	exp := expansions(items, a)
	res, err := prompt.Render(tmpl, a.Tokenizer, a.Specials, plan, exp)
	if err != nil {
		release()
		return nil, err
	}
	p.observe(times, "tokenize", time.Since(t0))

	sp, err := sampling(req, len(res.IDs), contextLength(w, a), a.EOS)
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
	forWorker(&sp, w, a)
	gr := &protocol.Request{
		ID:        workerRequestID(rid),
		InputIDs:  res.IDs,
		Text:      res.Text,
		Stream:    true,
		Sampling:  sp,
		Media:     mediaItems(items, res, a, exp),
		Placement: caps.Layout,
	}

	stream, err := p.generate(ctx, w, gr, batch, times)
	if err != nil {
		return nil, err // Generate released the batch
	}
	return newGeneration(p, a, req, stream, model, len(res.IDs), gr.Choices(), times, out), nil
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

// placeable refuses media for a worker whose protocol wants several items
// placed in a layout this pipeline does not make (it makes one buffer per
// item, and all items back to back for a flat layout).
func placeable(w *engine.Worker, items int) error {
	if c := w.Capabilities(); items > 1 && c.Layout != protocol.LayoutPerItem && c.Layout != protocol.LayoutFlat {
		return fmt.Errorf("pipeline: worker %s (%s) takes several media items in a layout this gateway does not place: %w", w.URL(), w.Runtime(), engine.ErrUnsupportedParam)
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
