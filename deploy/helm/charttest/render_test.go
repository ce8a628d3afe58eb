package charttest

import (
	"slices"
	"strings"
	"testing"

	monv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

const (
	chartDir    = "../mmgate"
	releaseName = "demo"
	releaseNS   = "ml"
)

// objects is one render, decoded.
type objects struct {
	kinds  []string       // "Kind/name" of each object
	byKind map[string]any // the object of each kind (one at most), as its Go type
}

// types are the objects the chart may render, by "apiVersion kind".
var types = map[string]func() any{
	"apps/v1 Deployment":                              func() any { return &appsv1.Deployment{} },
	"v1 Service":                                      func() any { return &corev1.Service{} },
	"v1 ServiceAccount":                               func() any { return &corev1.ServiceAccount{} },
	"rbac.authorization.k8s.io/v1 Role":               func() any { return &rbacv1.Role{} },
	"rbac.authorization.k8s.io/v1 RoleBinding":        func() any { return &rbacv1.RoleBinding{} },
	"rbac.authorization.k8s.io/v1 ClusterRole":        func() any { return &rbacv1.ClusterRole{} },
	"rbac.authorization.k8s.io/v1 ClusterRoleBinding": func() any { return &rbacv1.ClusterRoleBinding{} },
	"policy/v1 PodDisruptionBudget":                   func() any { return &policyv1.PodDisruptionBudget{} },
	"monitoring.coreos.com/v1 ServiceMonitor":         func() any { return &monv1.ServiceMonitor{} },
}

// get returns the rendered object of kind, nil when there is none.
func get[T any](o *objects, kind string) *T {
	v, _ := o.byKind[kind].(*T)
	return v
}

// render renders the chart with vals (over values.yaml) as release "demo"
// in namespace "ml".
func render(vals map[string]any) (map[string]string, error) {
	ch, err := loader.Load(chartDir)
	if err != nil {
		return nil, err
	}
	rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{
		Name: releaseName, Namespace: releaseNS, Revision: 1, IsInstall: true,
	}, nil)
	if err != nil {
		return nil, err
	}
	return engine.Render(ch, rv)
}

// decode renders vals and decodes every object strictly.
func decode(t *testing.T, vals map[string]any) *objects {
	t.Helper()
	files, err := render(vals)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	o := &objects{byKind: map[string]any{}}
	names := mapsKeys(files)
	slices.Sort(names)
	for _, name := range names {
		if strings.HasSuffix(name, "NOTES.txt") || strings.TrimSpace(files[name]) == "" {
			continue
		}
		docs := releaseutil.SplitManifests(files[name])
		for _, k := range releaseutil.BySplitManifestsOrder(mapsKeys(docs)) {
			if doc := docs[k]; strings.TrimSpace(doc) != "" {
				o.add(t, name, []byte(doc))
			}
		}
	}
	return o
}

func (o *objects) add(t *testing.T, file string, doc []byte) {
	t.Helper()
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	newObject, ok := types[tm.APIVersion+" "+tm.Kind]
	if !ok {
		t.Fatalf("%s: unexpected object %s %s", file, tm.APIVersion, tm.Kind)
	}
	target := newObject()
	if err := yaml.UnmarshalStrict(doc, target); err != nil {
		t.Fatalf("%s: strict decode of %s: %v\n%s", file, tm.Kind, err, doc)
	}
	name := target.(metav1.Object).GetName()
	if name == "" {
		t.Fatalf("%s: %s without a name", file, tm.Kind)
	}
	if _, dup := o.byKind[tm.Kind]; dup {
		t.Fatalf("%s: a second %s", file, tm.Kind)
	}
	o.kinds = append(o.kinds, tm.Kind+"/"+name)
	o.byKind[tm.Kind] = target
}

func mapsKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestRenderFailures: values that cannot work fail the render with the
// reason.
func TestRenderFailures(t *testing.T) {
	for _, tc := range []struct {
		vals map[string]any
		want string
	}{
		{map[string]any{"mode": "daemonset"}, "mode must be gateway or sidecar"},
		{map[string]any{"discovery": map[string]any{"enabled": false}}, "needs discovery.enabled or at least one entry in workers"},
		{map[string]any{"discovery": map[string]any{"selector": nil}}, "discovery.selector needs at least one label"},
		{map[string]any{"mode": "sidecar"}, "needs sidecar.worker.image"},
		{map[string]any{"podDisruptionBudget": map[string]any{"enabled": true, "minAvailable": 1, "maxUnavailable": 1}}, "not both"},
	} {
		_, err := render(tc.vals)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("values %v: error %v, want %q", tc.vals, err, tc.want)
		}
	}
}
