package kube

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/mmgate/mmgate/internal/discovery"
)

// Defaults for Options.
const (
	DefaultPort   = 50051 // mmgate worker's default listen port
	DefaultResync = 60 * time.Second
)

// Errors.
var (
	// ErrBadOptions: an Options field has an invalid value (the same error
	// as discovery.ErrBadOptions).
	ErrBadOptions = discovery.ErrBadOptions
	// ErrConfig: no usable cluster configuration (kubeconfig unreadable or
	// incomplete, or not running in a cluster).
	ErrConfig = errors.New("no cluster configuration")
)

// PodClient lists and watches pods, already scoped to a namespace (or to
// all). client-go's typed PodInterface (its fake's included) satisfies it.
// A client that cannot serve the streaming list implements
// IsWatchListSemanticsUnSupported() bool returning true, as client-go's
// fake clientset does, so that the informer does not wait for it.
type PodClient interface {
	List(ctx context.Context, opts metav1.ListOptions) (*corev1.PodList, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Options configure a Discovery. Selector and Sink are required; the zero
// value of every other field means its default.
type Options struct {
	// Selector: KEY=VALUE pairs a pod's labels must all match (at least
	// one; an empty selector would take every pod in the scope).
	Selector []string
	// Namespace to watch; empty means all namespaces. The kubeconfig
	// context's namespace is not used: this field alone decides.
	Namespace string
	// Port is the worker port of pods without the mmgate.io/port
	// annotation. Default 50051.
	Port int
	// Kubeconfig is a kubeconfig file, or several separated by the OS path
	// list separator as KUBECONFIG allows (the caller passes --kubeconfig,
	// else $KUBECONFIG). Empty means the in-cluster configuration (the
	// pod's service account).
	Kubeconfig string
	// Resync is the period of the reconcile pass that runs even without
	// events. Default 60 s.
	Resync time.Duration
	// Sink receives the worker set (required).
	Sink discovery.Sink
	// Logger receives discovery's log lines (client-go's included); nil
	// discards.
	Logger *slog.Logger
	// Client, when set, is used instead of one built from Kubeconfig; it is
	// used as is (Namespace does not scope it).
	Client PodClient
	// Now is the clock for Status (tests); nil means time.Now.
	Now func() time.Time
}

// ParseSelector checks KEY=VALUE pairs (label keys and values as
// Kubernetes validates them) and returns their conjunction.
func ParseSelector(pairs []string) (labels.Selector, error) {
	if len(pairs) == 0 {
		return nil, fmt.Errorf("kube: selector: at least one KEY=VALUE is needed: %w", ErrBadOptions)
	}
	set := labels.Set{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("kube: selector %q: want KEY=VALUE: %w", p, ErrBadOptions)
		}
		if old, dup := set[k]; dup && old != v {
			return nil, fmt.Errorf("kube: selector: key %q given twice (%q and %q): %w", k, old, v, ErrBadOptions)
		}
		set[k] = v
	}
	sel, err := labels.ValidatedSelectorFromSet(set)
	if err != nil {
		return nil, fmt.Errorf("kube: selector %q: %v: %w", strings.Join(pairs, ","), err, ErrBadOptions)
	}
	return sel, nil
}
