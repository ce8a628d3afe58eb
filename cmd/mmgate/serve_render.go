package main

import (
	"context"
	"errors"
	"log/slog"
	"runtime"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/internal/config"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/pipeline"
)

// This file answers: how is `serve --render-only` wired? The --model
// folder's assets and a pipeline.Renderer as the HTTP server's backend:
// vLLM's render API, /v1/models, health; no worker, no shared memory.

// checkRenderOnly checks the flags of --render-only.
func (f *serveFlags) checkRenderOnly() error {
	switch {
	case f.model == "":
		return errors.New("--render-only needs --model MODEL_DIR")
	case len(f.workers) > 0 || f.embedded:
		return errors.New("--render-only serves without workers: drop --worker and --embedded-worker")
	case f.maxModelLen < 0:
		return errors.New("--max-model-len must not be negative")
	}
	return nil
}

// serveRenderOnly serves the render API for --model until ctx ends.
func serveRenderOnly(ctx context.Context, f *serveFlags, c *serveConfig, log *slog.Logger, reg *prometheus.Registry, cpu int, heavy *cpupool.Pool) error {
	dec, fetcher, vdec, err := serveMedia(f, c, log)
	if err != nil {
		return err
	}
	defer fetcher.Close()
	a, err := pipeline.LoadAssets(f.model, pipeline.AssetOptions{Families: builtin.New(), Decoder: imageprep.MediaDecoder(dec), Video: vdec, Concurrency: cpu})
	if err != nil {
		return err
	}
	names := []string(f.servedNames)
	if len(names) == 0 {
		names = []string{f.model}
	}
	r, err := pipeline.NewRenderer(a, pipeline.RenderOptions{Fetcher: fetcher, MediaOrder: c.order, MaxMediaItems: f.maxItems,
		Names: names, MaxModelLen: f.maxModelLen, Heavy: heavy})
	if err != nil {
		return err
	}
	srv, err := newServer(f, c, r, reg, log, heavy)
	if err != nil {
		return err
	}
	announce := func() {
		facts := []slog.Attr{slog.String("version", version), slog.String("model", f.model), slog.Any("served_model_names", names),
			slog.Int("max_model_len", r.Models()[0].MaxModelLen), slog.Bool("video", vdec != nil),
			slog.Int("api_keys", len(c.apiKeys)), slog.Bool("tls", c.httpTLS != nil)}
		log.LogAttrs(context.Background(), slog.LevelInfo, "mmgate serve --render-only", config.Effective(c.flags, facts...)...)
	}
	return serveHTTP(ctx, f, c, srv, log, announce, func() {})
}

// serveHeavy starts the pool of low-priority threads for media work (nil
// with --heavy-nice -1); the runtime gets as many extra processors, so
// ordinary goroutines always have one.
func serveHeavy(f *serveFlags, cpu int, log *slog.Logger) (*cpupool.Pool, error) {
	if f.heavyNice < 0 {
		return nil, nil
	}
	// --heavy-nice 0 keeps the process priority: Nice -1.
	heavy, err := cpupool.New(cpupool.Options{Slots: cpu, Nice: zeroOff(f.heavyNice), Idle: f.heavyIdle})
	if err != nil {
		return nil, err
	}
	runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + cpu)
	if perr := heavy.PriorityError(); perr != nil {
		log.Warn("media threads: priority not lowered as asked", "err", perr)
	}
	return heavy, nil
}
