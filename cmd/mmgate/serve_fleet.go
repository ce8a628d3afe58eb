package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/internal/discovery/kube"
	"github.com/mmgate/mmgate/internal/fleet"
	"github.com/mmgate/mmgate/internal/pipeline"
	"github.com/mmgate/mmgate/internal/prefixtree"
	"github.com/mmgate/mmgate/internal/routing"
)

// This file answers: where do the gateway's workers come from, and which
// one takes a request? Static --worker URLs and Kubernetes discovery feed
// one engine (through a fleet.Fleet); --policy and its settings choose.

// fleetFlags are the discovery and routing settings.
type fleetFlags struct {
	discovery     bool
	selectors     stringList
	namespace     string
	port          int
	kubeconfig    string
	policy        string
	cacheThresh   float64
	balanceAbs    int
	balanceRel    float64
	maxTreeSize   int
	maxTreeAge    time.Duration
	sessionHeader string
}

func (f *fleetFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.discovery, "service-discovery", false, "find workers among Kubernetes pods (in-cluster configuration, else --kubeconfig or KUBECONFIG)")
	fs.Var(&f.selectors, "selector", "with --service-discovery: a `KEY=VALUE` label worker pods must carry (repeatable; all must match)")
	fs.StringVar(&f.namespace, "service-discovery-namespace", "", "with --service-discovery: the namespace to watch (default: all namespaces; the kubeconfig context's namespace is not used)")
	fs.IntVar(&f.port, "service-discovery-port", kube.DefaultPort, "with --service-discovery: the worker port of pods without the mmgate.io/port annotation")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "with --service-discovery: kubeconfig `FILE` (default: $KUBECONFIG, else the in-cluster service account)")
	fs.StringVar(&f.policy, "policy", engine.PolicyLeastLoaded, "worker selection: "+strings.Join(engine.Policies(), "|"))
	fs.Float64Var(&f.cacheThresh, "cache-threshold", routing.DefaultCacheThreshold, "cache_aware: the fraction of a prompt a worker's cached prefix must match (strictly more) to win")
	fs.IntVar(&f.balanceAbs, "balance-abs-threshold", routing.DefaultBalanceAbsThreshold, "cache_aware: the least loaded worker wins, whatever the cache, when the busiest has more than this many requests above it and more than --balance-rel-threshold times its load")
	fs.Float64Var(&f.balanceRel, "balance-rel-threshold", routing.DefaultBalanceRelThreshold, "cache_aware: see --balance-abs-threshold")
	fs.IntVar(&f.maxTreeSize, "max-tree-size", prefixtree.DefaultMaxTokens, "cache_aware: prompt tokens remembered per worker and model (least recently used go first)")
	fs.DurationVar(&f.maxTreeAge, "max-tree-age", prefixtree.DefaultMaxAge, "cache_aware: forget what a worker has not been sent for this long")
	fs.StringVar(&f.sessionHeader, "session-header", "X-Session-Id", "consistent_hash: the request header holding a session key (else the first user message is the key)")
}

// validate checks the settings that need it.
func (f *fleetFlags) validate() error {
	switch {
	case !slices.Contains(engine.Policies(), f.policy):
		return fmt.Errorf("--policy %q: want one of %s", f.policy, strings.Join(engine.Policies(), ", "))
	case f.cacheThresh < 0 || f.cacheThresh > 1:
		return fmt.Errorf("--cache-threshold %v: want 0 to 1", f.cacheThresh)
	case f.balanceAbs < 0 || f.balanceRel < 0 || f.maxTreeSize <= 0 || f.maxTreeAge <= 0:
		return errors.New("--balance-abs-threshold, --balance-rel-threshold, --max-tree-size and --max-tree-age must not be negative (sizes and ages positive)")
	case f.port < 1 || f.port > 65535:
		return fmt.Errorf("--service-discovery-port %d: want 1-65535", f.port)
	}
	if !f.discovery {
		return nil
	}
	_, err := kube.ParseSelector(f.selectors)
	return err
}

// cacheAware is the engine's cache_aware settings; a zero given on the
// command line is a zero, which the engine spells as a negative value.
func (f *fleetFlags) cacheAware() engine.CacheAwareOptions {
	zero := func(v float64) float64 {
		if v == 0 {
			return -1
		}
		return v
	}
	abs := f.balanceAbs
	if abs == 0 {
		abs = -1
	}
	return engine.CacheAwareOptions{Threshold: zero(f.cacheThresh), BalanceAbs: abs, BalanceRel: zero(f.balanceRel),
		MaxTreeTokens: f.maxTreeSize, MaxTreeAge: f.maxTreeAge}
}

// servedModels are the names the gateway answers for before a worker
// reports them: --served-model-name, else the --model folder's name (which
// `mmgate worker` serves it as by default).
func servedModels(f *serveFlags, modelDir string) []string {
	if len(f.servedNames) > 0 {
		return f.servedNames
	}
	if modelDir == "" {
		return nil
	}
	return []string{filepath.Base(filepath.Clean(modelDir))}
}

// kubeconfigFile is the kubeconfig discovery reads: --kubeconfig, else
// $KUBECONFIG; "" means the in-cluster service account.
func (f *fleetFlags) kubeconfigFile() string {
	if f.kubeconfig != "" {
		return f.kubeconfig
	}
	return os.Getenv("KUBECONFIG")
}

// discover watches pods with --service-discovery, feeding fl, until the
// returned function is called (which also closes fl).
func (f *fleetFlags) discover(fl *fleet.Fleet, log *slog.Logger) (stop func(), err error) {
	if !f.discovery {
		return fl.Close, nil
	}
	// client-go logs through klog: its lines go to this logger.
	klog.SetSlogLogger(log)
	d, err := kube.New(kube.Options{Selector: f.selectors, Namespace: f.namespace, Port: f.port,
		Kubeconfig: f.kubeconfigFile(), Sink: fl, Logger: log})
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
