package pipeline

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/internal/routing"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/vision"
)

// Chat runs a chat request up to the worker's first response and returns the
// generation to read events from.
func (p *Pipeline) Chat(ctx context.Context, req *openai.ChatRequest, rid string) (openai.Generation, error) {
	st := &gatewayStage{p: p, rid: rid, times: &stageTimes{}, key: routingKey(ctx, req)}
	r, err := p.front.chat(ctx, req, st)
	if err == nil {
		err = st.process(ctx, r)
	}
	if err != nil {
		st.release()
		return nil, err
	}
	// The admission and the media bytes kept for the worker are held until
	// the worker has the request.
	defer st.sent()
	forWorker(&r.Sampling, st.w, r.Assets)
	gr := &protocol.Request{
		ID:        workerRequestID(rid),
		InputIDs:  r.IDs,
		Text:      r.Text,
		Stream:    true,
		Sampling:  r.Sampling,
		Media:     r.Media,
		Placement: st.w.Capabilities().Layout,
	}
	stream, err := p.generate(ctx, st.w, gr, st.batch, st.times)
	if err != nil {
		return nil, err // Generate released the batch
	}
	return newGeneration(p, r.Assets, &req.Params, stream, r.Model, len(r.IDs), gr.Choices(), st.times, r.output), nil
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

// placeable refuses media for a worker whose protocol wants several items
// placed in a layout this pipeline does not make (it makes one buffer per
// item, and all items back to back for a flat layout).
func placeable(w *engine.Worker, items int) error {
	if c := w.Capabilities(); items > 1 && c.Layout != protocol.LayoutPerItem && c.Layout != protocol.LayoutFlat {
		return fmt.Errorf("pipeline: worker %s (%s) takes several media items in a layout this gateway does not place: %w", w.URL(), w.Runtime(), engine.ErrUnsupportedParam)
	}
	return nil
}

// resolve picks the served model: the request's, or the only one; a model
// that is not a served model name (one no worker serves or served before,
// and not configured) is not found.
func (p *Pipeline) resolve(name string) (string, error) {
	model := name
	if model == "" {
		ms := p.opts.Engine.Models()
		if len(ms) != 1 {
			return "", openai.BadRequest("model", "is required")
		}
		model = ms[0].Name
	}
	if p.opts.Engine.Serves(model) {
		return model, nil
	}
	// The model must exist before its files are fetched.
	return "", fmt.Errorf("pipeline: model %q: %w", clip(model, 128), engine.ErrModelNotFound)
}

// routingKey is the request's consistent_hash key: its session header
// (routing.SessionKey), else the text of its first user message.
func routingKey(ctx context.Context, req *openai.ChatRequest) string {
	if k := routing.SessionKey(ctx); k != "" {
		return k
	}
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		if m.Content.IsText {
			return m.Content.Text
		}
		var b strings.Builder
		for _, part := range m.Content.Parts {
			if part.Type == "text" {
				b.WriteString(part.Text)
			}
		}
		return b.String()
	}
	return ""
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
