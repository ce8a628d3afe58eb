package gateway

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/pipeline"
)

// This file answers: how is render-only mode wired? The model folder's
// assets and a pipeline.Renderer as the HTTP server's backend: vLLM's
// render API, /v1/models, health; no worker, no shared memory.

// runRenderOnly serves the render API for Model until ctx ends.
func runRenderOnly(ctx context.Context, o *Options, log *slog.Logger, reg *prometheus.Registry, cpu int, heavy *cpupool.Pool) error {
	m, err := newMedia(o.Media, o.Version, log)
	if err != nil {
		return err
	}
	defer m.fetcher.Close()
	a, err := pipeline.LoadAssets(o.Model, pipeline.AssetOptions{Families: builtin.New(), Decoder: imageprep.MediaDecoder(m.images), Video: m.video, Concurrency: cpu})
	if err != nil {
		return err
	}
	names := o.ServedModelNames
	if len(names) == 0 {
		names = []string{o.Model}
	}
	r, err := pipeline.NewRenderer(a, pipeline.RenderOptions{Fetcher: m.fetcher, MediaOrder: o.Media.Order, MaxMediaItems: o.Media.MaxItems,
		Names: names, MaxModelLen: o.MaxModelLen, Heavy: heavy})
	if err != nil {
		return err
	}
	srv, err := newServer(o, r, reg, log, heavy)
	if err != nil {
		return err
	}
	announce := func() {
		o.ready(slog.String("version", o.Version), slog.String("model", o.Model), slog.Any("served_model_names", names),
			slog.Int("max_model_len", r.Models()[0].MaxModelLen), slog.Bool("video", m.video != nil),
			slog.Int("api_keys", len(o.APIKeys)), slog.Bool("tls", o.TLS != nil))
	}
	return serveHTTP(ctx, o, srv, log, announce, func() {})
}

// ready calls Ready, when set, with the effective configuration.
func (o *Options) ready(facts ...slog.Attr) {
	if o.Ready != nil {
		o.Ready(Effective(o, facts...))
	}
}
