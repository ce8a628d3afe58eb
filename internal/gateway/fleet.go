package gateway

import (
	"cmp"
	"context"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"

	"github.com/mmgate/mmgate/engine"
	protocols "github.com/mmgate/mmgate/engine/builtin"
	"github.com/mmgate/mmgate/internal/discovery/kube"
	"github.com/mmgate/mmgate/internal/fleet"
	"github.com/mmgate/mmgate/internal/pipeline"
	"github.com/mmgate/mmgate/shm"
)

// This file answers: where do the gateway's workers come from, and which
// one takes a request? Static workers, the embedded one and Kubernetes
// discovery feed one engine (through a fleet.Fleet); the policy chooses.

// startEngine connects the workers and starts checking their health,
// puts a Fleet over the engine (registering its metrics) and, with
// discovery, watches pods. stop stops discovery, then closes the engine;
// it may be called more than once.
func startEngine(o *Options, workers []engine.WorkerConfig, model string, pool *shm.Pool, reg prometheus.Registerer, log *slog.Logger) (eng *engine.Engine, fl *fleet.Fleet, stop func(), err error) {
	eng, err = engine.New(engine.Options{Protocols: protocols.Protocols(), StallTimeout: o.Workers.StallTimeout, Workers: workers,
		Models: servedModels(o, model), Policy: o.Fleet.Policy, CacheAware: cacheAware(o.Fleet),
		HealthInterval: o.Workers.HealthInterval, Pool: pool, Registerer: reg, Logger: log})
	if err != nil {
		return nil, nil, nil, err
	}
	if err := eng.Start(context.Background()); err != nil {
		eng.Close()
		return nil, nil, nil, err
	}
	fl, err = fleet.New(fleet.Options{Engine: eng, Worker: o.Workers.Base(), Logger: log})
	if err == nil {
		err = reg.Register(fl.Collector())
	}
	var stopFleet func()
	if err == nil {
		stopFleet, err = discover(o.Fleet, fl, log)
	}
	if err != nil {
		eng.Close()
		return nil, nil, nil, err
	}
	return eng, fl, func() { stopFleet(); eng.Close() }, nil
}

// cacheAware is the engine's cache_aware settings; a zero here is a zero,
// which the engine spells as a negative value.
func cacheAware(o FleetOptions) engine.CacheAwareOptions {
	return engine.CacheAwareOptions{Threshold: cmp.Or(o.CacheThreshold, -1), BalanceAbs: cmp.Or(o.BalanceAbsThreshold, -1),
		BalanceRel: cmp.Or(o.BalanceRelThreshold, -1), MaxTreeTokens: o.MaxTreeSize, MaxTreeAge: o.MaxTreeAge}
}

// servedModels are the names the gateway answers for before a worker
// reports them: ServedModelNames, else the model folder's name (which
// `mmgate worker` serves it as by default).
func servedModels(o *Options, model string) []string {
	if len(o.ServedModelNames) > 0 {
		return o.ServedModelNames
	}
	if model == "" {
		return nil
	}
	return []string{filepath.Base(filepath.Clean(model))}
}

// discover watches pods with discovery on, feeding fl, until the returned
// function is called (which also closes fl).
func discover(o FleetOptions, fl *fleet.Fleet, log *slog.Logger) (stop func(), err error) {
	if !o.Discovery {
		return fl.Close, nil
	}
	// client-go logs through klog: its lines go to this logger.
	klog.SetSlogLogger(log)
	d, err := kube.New(kube.Options{Selector: o.Selectors, Namespace: o.Namespace, Port: o.Port,
		Kubeconfig: o.Kubeconfig, Sink: fl, Logger: log})
	if err != nil {
		return nil, err
	}
	fl.Attach("kubernetes", d.Status)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := d.Run(ctx); err != nil {
			log.Error("discovery stopped", "err", err)
		}
	})
	return func() { cancel(); wg.Wait(); fl.Close() }, nil
}

// withFleet is the pipeline with the discovery details in its health.
type withFleet struct {
	*pipeline.Pipeline
	fl *fleet.Fleet
}

func (b withFleet) Health() map[string]any {
	h := b.Pipeline.Health()
	if d := b.fl.Details(); d != nil {
		h["discovery"] = d
	}
	return h
}
