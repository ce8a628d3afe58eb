package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/vision"
)

// This file answers: what do the gateway and render do with a request's
// media items? The two implementations of mediaStage.

// gatewayStage is the gateway's media stage: it picks the worker, then
// fetches, decodes and preprocesses each item straight into its
// destination for that worker (an shm segment in the request's batch, or
// inline bytes; all items back to back in one destination for a protocol
// that joins them), on the heavy pool, through the tensor cache.
type gatewayStage struct {
	p     *Pipeline
	rid   string
	times *stageTimes
	// key is the request's consistent_hash key (session header, else the
	// first user message).
	key string
	// Set by begin: the worker, the modalities and, for a request with
	// media and a pool, the batch holding its segments (released by
	// release unless the worker took them).
	w     *engine.Worker
	mods  []vision.Modality
	batch *shm.Batch
	// Set by media: the items, whose media bytes kept for a protocol that
	// wants them (Capabilities.RawMedia) are given back by releaseRaw.
	items []prepared
}

func (g *gatewayStage) begin(ctx context.Context, model string, _ *Assets, plan *prompt.Plan) (int, error) {
	var (
		mods  []vision.Modality
		items int
	)
	if plan != nil {
		mods, items = modalities(plan), len(plan.Media)
	}
	w, err := g.p.opts.Engine.Pick(model, mods, &engine.Routing{Key: g.key})
	if err != nil {
		return 0, err
	}
	if err := placeable(w, items); err != nil {
		return 0, err
	}
	g.w, g.mods = w, mods
	if g.p.opts.Pool != nil && items > 0 {
		g.batch = g.p.opts.Pool.NewBatch(ctx, g.rid)
	}
	return w.Info().ContextLength, nil
}

func (g *gatewayStage) media(ctx context.Context, a *Assets, plan *prompt.Plan, ov overrides) ([]prepared, error) {
	c := g.w.Capabilities()
	j := &mediaJob{a: a, dt: g.w.EncoderDType(), route: g.w.Route(), batch: g.batch,
		ov: ov.image, vov: ov.video, raw: c.RawMedia, times: g.times}
	if len(plan.Media) > 1 && c.Layout == protocol.LayoutFlat {
		items, err := g.p.prepareFlat(ctx, j, plan)
		g.items = items
		return items, err
	}
	items, err := eachItem(ctx, plan, func(ctx context.Context, it prompt.MediaItem) (prepared, error) {
		return g.item(ctx, j, it)
	})
	if err != nil {
		releaseRaw(items)
		return nil, err
	}
	g.items = items
	return items, nil
}

// item prepares one item into a destination of its own.
func (g *gatewayStage) item(ctx context.Context, j *mediaJob, it prompt.MediaItem) (prepared, error) {
	var (
		pr  prepared
		err error
	)
	if it.Modality == prompt.Video {
		pr, err = g.p.prepareVideo(ctx, j, it)
	} else {
		pr, err = g.p.prepareOne(ctx, j, it)
	}
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	g.p.m.media.WithLabelValues(it.Modality.String(), outcome).Inc()
	return pr, err
}

func (g *gatewayStage) observe(stage string, d time.Duration) { g.p.observe(g.times, stage, d) }

// route lets a policy that reads the prompt (cache_aware) choose once the
// prompt is rendered: among the workers that take the request's tensors as
// begin's worker had them placed.
func (g *gatewayStage) route(r *Rendered) error {
	e := g.p.opts.Engine
	if !e.ReadsPrompt() {
		return nil
	}
	in := &engine.Routing{IDs: r.IDs, Media: r.Media, Key: g.key}
	if len(r.Media) > 0 {
		in.PlacedFor = g.w
	}
	w, err := e.Pick(r.Model, g.mods, in)
	if err != nil {
		return err
	}
	g.w = w
	return nil
}

// release gives back what the request holds when it failed before its
// worker took it: its segments and the media bytes kept for the worker.
func (g *gatewayStage) release() {
	if g.batch != nil {
		g.batch.Release()
	}
	g.releaseRaw()
}

// releaseRaw gives back the media bytes kept for the worker, once its
// request is sent (Engine.Generate returned) or failed.
func (g *gatewayStage) releaseRaw() { releaseRaw(g.items) }

// errNoFetch refuses media that would have to be fetched from elsewhere.
var errNoFetch = errors.New("fetching media is not enabled in render; send images and videos as data: URLs")

// probeStage is render's media stage: it fetches each item and plans it
// from its headers (an image's size, a video's probed stream) without
// decoding a pixel for processing; it hashes the bytes as the gateway
// does.
type probeStage struct {
	fetcher *fetch.Fetcher
	// inlineOnly refuses media that is not a data: URL before fetching.
	inlineOnly bool
	// heavy, when set, runs each item's CPU work (a data: URL's decoding,
	// hashing, reading headers) on its low-priority threads, as the
	// gateway runs its media work, so that text requests never wait on it.
	heavy *cpupool.Pool
	// contextLen is the context length to budget a model against (0 or
	// nil: the model's own).
	contextLen func(model string) int
}

func (s probeStage) begin(_ context.Context, model string, _ *Assets, _ *prompt.Plan) (int, error) {
	if s.contextLen == nil {
		return 0, nil
	}
	return s.contextLen(model), nil
}

func (probeStage) observe(string, time.Duration) {}

func (s probeStage) media(ctx context.Context, a *Assets, plan *prompt.Plan, ov overrides) ([]prepared, error) {
	items, err := eachItem(ctx, plan, func(ctx context.Context, it prompt.MediaItem) (prepared, error) {
		return s.item(ctx, a, it, ov)
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

func (s probeStage) item(ctx context.Context, a *Assets, it prompt.MediaItem, ov overrides) (prepared, error) {
	if it.Modality != prompt.Video {
		if err := checkImage(a, it); err != nil {
			return prepared{}, err
		}
	} else if a.VideoPrep == nil {
		return prepared{}, errNoVideo(it)
	}
	if s.inlineOnly && it.Scheme() != "data" {
		return prepared{}, fmt.Errorf("%s: %s URL: %w", it.Param, it.Scheme(), errNoFetch)
	}
	// A data: URL is decoded with the heavy work (it is CPU, not waiting);
	// other sources are fetched before taking a heavy slot.
	var (
		m   *fetch.Media
		err error
	)
	inline := it.Scheme() == "data"
	if !inline {
		if m, err = s.fetcher.Fetch(ctx, it.URL); err != nil {
			return prepared{}, fmt.Errorf("%s: %w", it.Param, err)
		}
	}
	defer func() { m.Release() }()
	var pr prepared
	work := func() {
		if inline {
			if m, err = s.fetcher.Fetch(ctx, it.URL); err != nil {
				err = fmt.Errorf("%s: %w", it.Param, err)
				return
			}
		}
		pr = prepared{modality: it.Modality}
		if it.Modality == prompt.Image {
			identify(&pr, m.Bytes, imageSettings(ov.image))
			err = planImage(a, it, m.Bytes, ov, &pr)
		} else {
			identify(&pr, m.Bytes, videoSettings(ov.video))
		}
	}
	if s.heavy != nil {
		if rerr := s.heavy.Run(ctx, work); rerr != nil {
			return prepared{}, rerr
		}
	} else {
		work()
	}
	if err == nil && it.Modality == prompt.Video {
		// Probing waits on FFmpeg: no heavy slot is held for it.
		err = planVideo(ctx, a, it, m.Bytes, ov, &pr)
	}
	if err != nil {
		return prepared{}, err
	}
	pr.side = a.Model.SideTensors(pr.item())
	return pr, nil
}

// planImage plans an image from its header (a.Prep is set).
func planImage(a *Assets, it prompt.MediaItem, data []byte, ov overrides, pr *prepared) error {
	p, err := a.Prep.Plan(data, ov.image)
	if err != nil {
		return fmt.Errorf("%s: %w", it.Param, err)
	}
	pr.plan = p
	return nil
}

// planVideo plans a video from its probed stream (a.VideoPrep is set).
func planVideo(ctx context.Context, a *Assets, it prompt.MediaItem, data []byte, ov overrides, pr *prepared) error {
	_, vp, err := a.VideoPrep.Plan(ctx, data, ov.video)
	if err != nil {
		return fmt.Errorf("%s: %w", it.Param, err)
	}
	pr.plan, pr.video = vp.Plan, &vp
	return nil
}
