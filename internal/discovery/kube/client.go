package kube

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// RESTConfig loads the cluster configuration: the kubeconfig file(s) in
// kubeconfig (current context; its namespace is ignored), or the in-cluster
// configuration when kubeconfig is empty. As client-go does, credentials
// from a kubeconfig (bearer tokens, client certificates) are used only when
// the server is reached over TLS.
func RESTConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("kube: in-cluster configuration: %v: %w", err, ErrConfig)
		}
		return cfg, nil
	}
	// One file must exist; a list merges the files that exist, as
	// KUBECONFIG does.
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig}
	if files := filepath.SplitList(kubeconfig); len(files) > 1 {
		rules = &clientcmd.ClientConfigLoadingRules{Precedence: files}
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kube: kubeconfig %s: %v: %w", kubeconfig, err, ErrConfig)
	}
	return cfg, nil
}

// NewPodClient returns a PodClient for namespace ("" = all) speaking to the
// API server of cfg in JSON.
func NewPodClient(cfg *rest.Config, namespace string) (PodClient, error) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("kube: core/v1 scheme: %w", err)
	}
	c := rest.CopyConfig(cfg)
	c.APIPath = "/api"
	c.GroupVersion = &corev1.SchemeGroupVersion
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	c.ContentType = runtime.ContentTypeJSON
	c.AcceptContentTypes = runtime.ContentTypeJSON
	if c.UserAgent == "" {
		c.UserAgent = "mmgate-discovery"
	}
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("kube: REST client: %v: %w", err, ErrConfig)
	}
	return &podClient{rc: rc, ns: namespace, params: runtime.NewParameterCodec(scheme)}, nil
}

// podClient is the List and Watch of client-go's typed Pods client on a
// core/v1-only scheme.
type podClient struct {
	rc     *rest.RESTClient
	ns     string
	params runtime.ParameterCodec
}

func (c *podClient) request(opts *metav1.ListOptions) *rest.Request {
	r := c.rc.Get().Namespace(c.ns).Resource("pods").VersionedParams(opts, c.params)
	if opts.TimeoutSeconds != nil {
		r = r.Timeout(time.Duration(*opts.TimeoutSeconds) * time.Second)
	}
	return r
}

func (c *podClient) List(ctx context.Context, opts metav1.ListOptions) (*corev1.PodList, error) {
	out := &corev1.PodList{}
	if err := c.request(&opts).Do(ctx).Into(out); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *podClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	return c.request(&opts).Watch(ctx)
}
