package pipeline

import (
	"context"
	"time"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/internal/admission"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/vision"
)

// This file answers: what do the gateway and render do with a request's
// media items? The two implementations of mediaStage. Both fetch, hash and
// plan every item from its headers (prober) before the prompt is rendered;
// the gateway then admits the request by its planned bytes, picks the
// worker, and (after the front half, process) decodes and processes each
// item straight into that worker's destination.

// gatewayStage is the gateway's media stage. Its state is one request's.
type gatewayStage struct {
	p     *Pipeline
	rid   string
	times *stageTimes
	// key is the request's consistent_hash key (session header, else the
	// first user message).
	key string
	// Set by begin: what the request needs of a worker.
	model string
	mods  []vision.Modality
	// Set by media: the planned items (holding their bytes until
	// processed, or until sent for a worker that wants them) and the
	// request's processor settings.
	items []prepared
	ov    overrides
	// Set by route: the admission of the request's planned bytes (held
	// until the worker has the tensors), the worker and, for a request
	// with media and a pool, the batch holding its segments.
	ticket *admission.Ticket
	w      *engine.Worker
	batch  *shm.Batch
}

// begin checks, before any item is fetched, that a healthy worker of the
// model takes the request's modalities.
func (g *gatewayStage) begin(_ context.Context, model string, _ *Assets, plan *prompt.Plan) error {
	g.model = model
	if plan != nil {
		g.mods = modalities(plan)
	}
	_, err := g.p.opts.Engine.Candidates(model, g.mods)
	return err
}

func (g *gatewayStage) media(ctx context.Context, a *Assets, plan *prompt.Plan, ov overrides) ([]prepared, error) {
	s := prober{fetcher: g.p.opts.Fetcher, heavy: g.p.opts.Heavy, keep: true, observe: g.observe}
	items, err := s.items(ctx, a, plan, ov)
	if err != nil {
		for _, it := range plan.Media {
			g.p.m.media.WithLabelValues(it.Modality.String(), "error").Inc()
		}
		return nil, err
	}
	g.items, g.ov = items, ov
	return items, nil
}

// route admits the request by its planned bytes — the most any worker it
// may go to needs — then picks its worker and holds the bytes that worker
// needs. A text-only request plans nothing and never waits. This is the
// request's only pick: nothing is placed yet, so every policy chooses among
// all the candidates with the rendered ids, the items' content hashes and
// the session key.
func (g *gatewayStage) route(ctx context.Context, r *Rendered, items []prepared) (int, error) {
	p := g.p
	if len(items) > 0 && p.opts.Admission != nil {
		cands, err := p.opts.Engine.Candidates(g.model, g.mods)
		if err != nil {
			return 0, err
		}
		var need int64
		for _, w := range cands {
			need = max(need, p.memoryFor(r.Assets, items, w).total())
		}
		t0 := time.Now()
		g.ticket, err = p.opts.Admission.Admit(ctx, need)
		g.observe("admission", time.Since(t0))
		if err != nil {
			return 0, err
		}
	}
	w, err := p.opts.Engine.Pick(g.model, g.mods, &engine.Routing{IDs: r.IDs, Media: r.Media, Key: g.key})
	if err != nil {
		return 0, err
	}
	if err := placeable(w, len(items)); err != nil {
		return 0, err
	}
	g.w = w
	if g.ticket != nil {
		g.ticket.Resize(p.memoryFor(r.Assets, items, w).total())
	}
	if p.opts.Pool != nil && len(items) > 0 {
		g.batch = p.opts.Pool.NewBatch(ctx, g.rid)
	}
	return w.Info().ContextLength, nil
}

// process decodes and preprocesses every item straight into its
// destination for the picked worker, on the heavy pool, through the tensor
// cache — all items back to back in one destination for a protocol that
// joins them (LayoutFlat) — and sets r's encoder inputs (and the media
// bytes for a protocol that wants them, RawMedia, kept until sent).
func (g *gatewayStage) process(ctx context.Context, r *Rendered) (err error) {
	items := g.items
	if len(items) == 0 {
		return nil
	}
	defer func() {
		outcome := "ok"
		if err != nil {
			outcome = "error"
		}
		for _, it := range items {
			g.p.m.media.WithLabelValues(it.modality.String(), outcome).Inc()
		}
	}()
	c := g.w.Capabilities()
	j := &mediaJob{a: r.Assets, dt: g.w.EncoderDType(), route: g.w.Route(), batch: g.batch,
		ov: g.ov.image, vov: g.ov.video, times: g.times}
	slots := g.p.slotsFor(j, items)
	if len(items) > 1 && c.Layout == protocol.LayoutFlat {
		err = placeFlat(ctx, j, slots)
	} else {
		err = placeEach(ctx, j, slots)
	}
	if err != nil {
		return err
	}
	for i := range items {
		r.Media[i].Input = items[i].input
		if c.RawMedia {
			r.Media[i].Raw = items[i].media.Bytes
		}
	}
	if !c.RawMedia {
		releaseMedia(items)
	}
	return nil
}

func (g *gatewayStage) observe(stage string, d time.Duration) { g.p.observe(g.times, stage, d) }

// release gives back what the request holds when it failed before its
// worker took it: its segments, its media bytes and its admission.
func (g *gatewayStage) release() {
	if g.batch != nil {
		g.batch.Release()
	}
	g.sent()
}

// sent gives back, once the request is sent (Engine.Generate returned: the
// worker has its tensors, segments committed or the inline message
// answered) or failed, the media bytes kept for the worker and the
// request's admission.
func (g *gatewayStage) sent() {
	releaseMedia(g.items)
	g.ticket.Release()
}

// probeStage is render's media stage: the prober alone (the bytes go back
// once each item is planned), nothing after the prompt but the context
// length to budget against.
type probeStage struct {
	fetcher *fetch.Fetcher
	// inlineOnly refuses media that is not a data: URL before fetching.
	inlineOnly bool
	// heavy, when set, runs each item's CPU work on its low-priority
	// threads, as the gateway runs its media work.
	heavy *cpupool.Pool
	// contextLen is the context length to budget a model against (0 or
	// nil: the model's own).
	contextLen func(model string) int
}

func (probeStage) begin(context.Context, string, *Assets, *prompt.Plan) error { return nil }

func (s probeStage) media(ctx context.Context, a *Assets, plan *prompt.Plan, ov overrides) ([]prepared, error) {
	return prober{fetcher: s.fetcher, inlineOnly: s.inlineOnly, heavy: s.heavy}.items(ctx, a, plan, ov)
}

func (s probeStage) route(_ context.Context, r *Rendered, _ []prepared) (int, error) {
	return s.maxModelLen(r.Model), nil
}

// maxModelLen is the context length to budget model against (0: the
// model's own).
func (s probeStage) maxModelLen(model string) int {
	if s.contextLen == nil {
		return 0
	}
	return s.contextLen(model)
}

func (probeStage) observe(string, time.Duration) {}
