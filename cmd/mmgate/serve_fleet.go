package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/internal/discovery/kube"
	"github.com/mmgate/mmgate/internal/gateway"
	"github.com/mmgate/mmgate/internal/prefixtree"
	"github.com/mmgate/mmgate/internal/routing"
)

// registerFleet adds the discovery and routing flags, which set o.
func registerFleet(fs *flag.FlagSet, o *gateway.FleetOptions) {
	fs.BoolVar(&o.Discovery, "service-discovery", false, "find workers among Kubernetes pods (in-cluster configuration, else --kubeconfig or KUBECONFIG)")
	fs.Var((*stringList)(&o.Selectors), "selector", "with --service-discovery: a `KEY=VALUE` label worker pods must carry (repeatable; all must match)")
	fs.StringVar(&o.Namespace, "service-discovery-namespace", "", "with --service-discovery: the namespace to watch (default: all namespaces; the kubeconfig context's namespace is not used)")
	fs.IntVar(&o.Port, "service-discovery-port", kube.DefaultPort, "with --service-discovery: the worker port of pods without the mmgate.io/port annotation")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "with --service-discovery: kubeconfig `FILE` (default: $KUBECONFIG, else the in-cluster service account)")
	fs.StringVar(&o.Policy, "policy", engine.PolicyLeastLoaded, "worker selection: "+strings.Join(engine.Policies(), "|"))
	fs.Float64Var(&o.CacheThreshold, "cache-threshold", routing.DefaultCacheThreshold, "cache_aware: the fraction of a prompt a worker's cached prefix must match (strictly more) to win")
	fs.IntVar(&o.BalanceAbsThreshold, "balance-abs-threshold", routing.DefaultBalanceAbsThreshold, "cache_aware: the least loaded worker wins, whatever the cache, when the busiest has more than this many requests above it and more than --balance-rel-threshold times its load")
	fs.Float64Var(&o.BalanceRelThreshold, "balance-rel-threshold", routing.DefaultBalanceRelThreshold, "cache_aware: see --balance-abs-threshold")
	fs.IntVar(&o.MaxTreeSize, "max-tree-size", prefixtree.DefaultMaxTokens, "cache_aware: prompt tokens remembered per worker and model (least recently used go first)")
	fs.DurationVar(&o.MaxTreeAge, "max-tree-age", prefixtree.DefaultMaxAge, "cache_aware: forget what a worker has not been sent for this long")
	fs.StringVar(&o.SessionHeader, "session-header", "X-Session-Id", "consistent_hash: the request header holding a session key (else the first user message is the key)")
}

// validateFleet checks the discovery and routing flags and resolves the
// kubeconfig discovery reads: --kubeconfig, else (with
// --service-discovery) $KUBECONFIG; "" means the in-cluster service
// account.
func validateFleet(o *gateway.FleetOptions) error {
	if o.Discovery && o.Kubeconfig == "" {
		o.Kubeconfig = os.Getenv("KUBECONFIG")
	}
	switch {
	case !slices.Contains(engine.Policies(), o.Policy):
		return fmt.Errorf("--policy %q: want one of %s", o.Policy, strings.Join(engine.Policies(), ", "))
	case o.CacheThreshold < 0 || o.CacheThreshold > 1:
		return fmt.Errorf("--cache-threshold %v: want 0 to 1", o.CacheThreshold)
	case o.BalanceAbsThreshold < 0 || o.BalanceRelThreshold < 0 || o.MaxTreeSize <= 0 || o.MaxTreeAge <= 0:
		return errors.New("--balance-abs-threshold, --balance-rel-threshold, --max-tree-size and --max-tree-age must not be negative (sizes and ages positive)")
	case o.Port < 1 || o.Port > 65535:
		return fmt.Errorf("--service-discovery-port %d: want 1-65535", o.Port)
	}
	if !o.Discovery {
		return nil
	}
	_, err := kube.ParseSelector(o.Selectors)
	return err
}
