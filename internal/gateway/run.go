package gateway

import (
	"cmp"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/internal/admission"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/demomodel"
	"github.com/mmgate/mmgate/internal/fleet"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/pipeline"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/shm"
)

// This file answers: in which order is the gateway built, and torn down?

// Run builds the gateway (or, with RenderOnly, the render API) from o and
// serves it until ctx ends; then it shuts down gracefully and returns.
func Run(ctx context.Context, o Options) error {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	reg := newRegistry()
	tmp, err := os.MkdirTemp("", "mmgate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	cpu := o.Media.CPU
	if cpu <= 0 {
		cpu = runtime.GOMAXPROCS(0)
	}
	heavy, err := startHeavy(o.Heavy, cpu, log)
	if err != nil {
		return err
	}
	if heavy != nil {
		defer heavy.Close()
	}
	if o.RenderOnly {
		return runRenderOnly(ctx, &o, log, reg, cpu, heavy)
	}
	g := &gateway{o: &o, log: log, reg: reg, tmp: tmp, cpu: cpu, heavy: heavy}
	return g.run(ctx)
}

// gateway is what Run builds in order; each part's stop runs in reverse.
type gateway struct {
	o     *Options
	log   *slog.Logger
	reg   *prometheus.Registry
	tmp   string
	cpu   int
	heavy *cpupool.Pool

	ctl     *admission.Controller
	budget  Budget
	model   string
	workers []engine.WorkerConfig
	pool    *shm.Pool
	eng     *engine.Engine
	fl      *fleet.Fleet
}

// run starts the budget, the embedded worker, shared memory and the
// engine, then serves.
func (g *gateway) run(ctx context.Context) error {
	o := g.o
	var err error
	if g.ctl, g.budget, err = NewAdmission(o.Budget, o.Limits.QueueTimeout, g.reg); err != nil {
		return err
	}
	var w *embeddedWorker
	if g.model, w, err = startEmbedded(o, g.tmp, heavyRunner(g.heavy), g.log); err != nil {
		return err
	}
	g.workers = slices.Clone(o.Workers.URLs)
	var prune func()
	if w != nil {
		defer w.stop()
		wc := o.Workers.Base()
		wc.URL, wc.TLS = w.url, nil
		g.workers, prune = append(g.workers, wc), w.reader.Prune
	}
	var stopJanitor func()
	if g.pool, stopJanitor, err = startShm(o.Shm, g.reg, g.log, g.ctl.Holder("shm_reuse"), prune); err != nil {
		return err
	}
	defer g.pool.Close()
	defer stopJanitor()

	var stopEngine func()
	if g.eng, g.fl, stopEngine, err = startEngine(o, g.workers, g.model, g.pool, g.reg, g.log); err != nil {
		return err
	}
	defer stopEngine()
	return g.serve(ctx, func() {
		// Discovery stops; the engine waits for the Abort calls of cut
		// requests; then no worker will read our segments any more.
		stopEngine()
		stopJanitor()
		g.pool.Close()
		if n := g.pool.RemoveOwn(); n > 0 {
			g.log.Info("shutdown: removed shared-memory segments left by cut requests", "segments", n)
		}
	})
}

// serve builds the media stack, the pipeline and the HTTP server, and
// serves until ctx ends; stopped runs after a graceful shutdown.
func (g *gateway) serve(ctx context.Context, stopped func()) error {
	o := g.o
	m, err := newMedia(o.Media, o.Version, g.log)
	if err != nil {
		return err
	}
	defer m.fetcher.Close()
	pipe, err := pipeline.New(pipeline.Options{
		Engine: g.eng, Pool: g.pool, Fetcher: m.fetcher, Decoder: imageprep.ScratchDecoder(m.images), Video: m.video,
		Families: builtin.New(), ModelDir: g.model, BundleDir: filepath.Join(g.tmp, "bundles"),
		CacheBytes: cmp.Or(o.Media.CacheBytes, -1), CPU: g.cpu, MediaOrder: o.Media.Order, MaxMediaItems: o.Media.MaxItems,
		Admission: g.ctl, InlineCopies: inlineCopies(o.Embedded.Enabled),
		Exact: media.Exact(), Heavy: g.heavy, Registerer: g.reg, Logger: g.log,
	})
	if err != nil {
		return err
	}
	srv, err := newServer(o, withFleet{pipe, g.fl}, g.reg, g.log, g.heavy)
	if err != nil {
		return err
	}
	return serveHTTP(ctx, o, srv, g.log, g.announce, stopped)
}

// announce reports the effective configuration and what shared memory
// warns of, and prints the first request to try on the demo model.
func (g *gateway) announce() {
	g.o.ready(serveFacts(g.o, g.model, g.workers, g.pool, g.budget)...)
	for _, w := range g.pool.Probe().Warnings {
		g.log.Warn("shared memory: " + w)
	}
	if g.o.Embedded.Enabled && g.o.Example != nil {
		demomodel.PrintExample(g.o.Example, cmp.Or(g.o.Listen, DefaultListen), g.o.TLS != nil, g.tmp)
	}
}
