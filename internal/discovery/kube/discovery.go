package kube

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/mmgate/mmgate/internal/discovery"
)

// Discovery watches pods and keeps a discovery.Tracker at the cluster's
// worker set.
type Discovery struct {
	sel     labels.Selector
	port    int
	resync  time.Duration
	client  PodClient
	log     *slog.Logger
	tracker *discovery.Tracker
	// kick asks the run loop for a reconcile pass; one pending request is
	// enough, so bursts of events collapse into one pass.
	kick chan struct{}
}

// New checks o, builds the client (from o.Kubeconfig or in-cluster, unless
// o.Client is set) and returns a Discovery ready to Run. It does not
// contact the API server.
func New(o Options) (*Discovery, error) {
	sel, err := ParseSelector(o.Selector)
	if err != nil {
		return nil, err
	}
	d := &Discovery{sel: sel, port: o.Port, resync: o.Resync, client: o.Client, log: o.Logger, kick: make(chan struct{}, 1)}
	switch {
	case d.port == 0:
		d.port = DefaultPort
	case d.port < 1 || d.port > 65535:
		return nil, fmt.Errorf("kube: port %d (want 1-65535): %w", o.Port, ErrBadOptions)
	}
	if d.resync == 0 {
		d.resync = DefaultResync
	} else if d.resync < 0 {
		return nil, fmt.Errorf("kube: resync %v (want a positive period): %w", o.Resync, ErrBadOptions)
	}
	if d.log == nil {
		d.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	d.tracker, err = discovery.NewTracker(discovery.TrackerOptions{Sink: o.Sink, Source: "kubernetes", Logger: d.log, Now: o.Now})
	if err != nil {
		return nil, fmt.Errorf("kube: %w", err)
	}
	if d.client == nil {
		cfg, err := RESTConfig(o.Kubeconfig)
		if err != nil {
			return nil, err
		}
		if d.client, err = NewPodClient(cfg, o.Namespace); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Selector is the label selector sent to the API server.
func (d *Discovery) Selector() string { return d.sel.String() }

// Status returns the discovery state (for /health/ready details and the
// gateway's metrics).
func (d *Discovery) Status() discovery.Status { return d.tracker.Status() }

// Run lists and watches pods until ctx ends, reporting the worker set to
// the Sink after the first complete list, after every change and every
// Resync. It returns nil when ctx ends (the reported workers are left as
// they are: the gateway is stopping) and waits for its goroutines first.
// Call it once.
func (d *Discovery) Run(ctx context.Context) error {
	ctx = klog.NewContext(ctx, logr.FromSlogHandler(d.log.Handler()))
	inf := cache.NewSharedIndexInformerWithOptions(d.listWatch(), &corev1.Pod{},
		cache.SharedIndexInformerOptions{ObjectDescription: "pods " + d.sel.String()})
	if err := inf.SetTransform(trimPod); err != nil {
		return fmt.Errorf("kube: informer transform: %w", err)
	}
	if err := inf.SetWatchErrorHandlerWithContext(d.watchError); err != nil {
		return fmt.Errorf("kube: informer error handler: %w", err)
	}
	kick := func(any) { d.poke() }
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: kick, DeleteFunc: kick, UpdateFunc: func(_, _ any) { d.poke() },
	}); err != nil {
		return fmt.Errorf("kube: informer handler: %w", err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { inf.RunWithContext(ctx) })
	d.log.Info("discovery: watching pods", "source", "kubernetes", "selector", d.sel.String())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil
	}
	tick := time.NewTicker(d.resync)
	defer tick.Stop()
	for {
		d.reconcile(inf.GetStore().List())
		select {
		case <-ctx.Done():
			return nil
		case <-d.kick:
		case <-tick.C:
		}
	}
}

func (d *Discovery) poke() {
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// reconcile classifies every pod in the informer's store and applies the
// result.
func (d *Discovery) reconcile(objs []any) {
	pods := make([]discovery.PodState, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			if ps, match := Classify(p, d.sel, d.port); match {
				pods = append(pods, ps)
			}
		}
	}
	d.tracker.Apply(pods)
}

// listWatch lists and watches with the selector in every request.
func (d *Discovery) listWatch() cache.ListerWatcher {
	sel := d.sel.String()
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.LabelSelector = sel
			return d.client.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.LabelSelector = sel
			return d.client.Watch(ctx, opts)
		},
	}, d.client)
}

// watchError records a failed list or watch for Status and lets client-go
// log it and retry as it always does.
func (d *Discovery) watchError(ctx context.Context, r *cache.Reflector, err error) {
	d.tracker.NoteError(err)
	cache.DefaultWatchErrorHandler(ctx, r, err)
}

// trimPod drops what the informer's cache need not hold: managed fields
// are most of a pod object's size and nothing here reads them.
func trimPod(obj any) (any, error) {
	if p, ok := obj.(*corev1.Pod); ok {
		p.ManagedFields = nil
	}
	return obj, nil
}
