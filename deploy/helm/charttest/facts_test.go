package charttest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	monv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// valueSets are the configurations the chart is checked with.
var valueSets = []struct {
	name  string
	vals  map[string]any
	kinds []string
}{
	{"defaults", nil, []string{"Role/demo-mmgate", "RoleBinding/demo-mmgate", "Deployment/demo-mmgate",
		"Service/demo-mmgate", "ServiceAccount/demo-mmgate"}},
	{"cluster-wide discovery and a static worker", map[string]any{
		"discovery": map[string]any{"clusterWide": true},
		"workers":   []any{"grpc://10.0.0.5:50051"},
	}, []string{"ClusterRole/demo-mmgate", "ClusterRoleBinding/demo-mmgate", "Deployment/demo-mmgate",
		"Service/demo-mmgate", "ServiceAccount/demo-mmgate"}},
	{"static workers only", map[string]any{
		"discovery": map[string]any{"enabled": false},
		"workers":   []any{"grpc://10.0.0.5:50051", "grpcs://10.0.0.6:50051"},
	}, []string{"Deployment/demo-mmgate", "Service/demo-mmgate", "ServiceAccount/demo-mmgate"}},
	{"production gateways", map[string]any{
		"replicas":            3,
		"gateway":             map[string]any{"policy": "cache_aware", "shutdownTimeoutSeconds": 60, "extraArgs": []any{"--max-in-flight", "512"}},
		"discovery":           map[string]any{"namespace": "workers", "selector": map[string]any{"app": "vl", "tier": "gpu"}, "port": 8001},
		"apiKeys":             map[string]any{"existingSecret": "mmgate-keys"},
		"podDisruptionBudget": map[string]any{"enabled": true, "minAvailable": 2, "maxUnavailable": nil},
		"serviceMonitor":      map[string]any{"enabled": true, "labels": map[string]any{"release": "prom"}},
		"service":             map[string]any{"sessionAffinity": "ClientIP"},
	}, []string{"PodDisruptionBudget/demo-mmgate", "Role/demo-mmgate", "RoleBinding/demo-mmgate",
		"Deployment/demo-mmgate", "Service/demo-mmgate", "ServiceAccount/demo-mmgate", "ServiceMonitor/demo-mmgate"}},
	{"sidecar", map[string]any{
		"mode": "sidecar",
		"sidecar": map[string]any{
			"replicas": 4, "shmGroup": 2000, "shmSizeLimit": "8Gi",
			"worker": map[string]any{
				"image":     "registry.example/tokenspeed-vllm:1.0",
				"command":   []any{"python3", "-m", "tokenspeed.serve"},
				"args":      []any{"--model", "/models/qwen3-vl", "--grpc-port", "50051"},
				"resources": map[string]any{"limits": map[string]any{"nvidia.com/gpu": 1}},
			},
		},
		"podDisruptionBudget": map[string]any{"enabled": true},
		"serviceMonitor":      map[string]any{"enabled": true},
	}, []string{"PodDisruptionBudget/demo-mmgate", "Deployment/demo-mmgate", "Service/demo-mmgate",
		"ServiceAccount/demo-mmgate", "ServiceMonitor/demo-mmgate"}},
}

func TestValueSets(t *testing.T) {
	for _, vs := range valueSets {
		t.Run(vs.name, func(t *testing.T) {
			o := decode(t, vs.vals)
			slices.Sort(o.kinds)
			if want := slices.Sorted(slices.Values(vs.kinds)); !slices.Equal(o.kinds, want) {
				t.Fatalf("objects %q, want %q", o.kinds, want)
			}
			pod := checkWorkload(t, o)
			gw := container(t, pod, "gateway")
			checkGateway(t, pod, gw)
			checkSelectors(t, o, pod)
			if sa := get[corev1.ServiceAccount](o, "ServiceAccount"); pod.Spec.ServiceAccountName != sa.Name {
				t.Fatalf("pods run as %q, the chart creates %q", pod.Spec.ServiceAccountName, sa.Name)
			}
			mode, _ := vs.vals["mode"].(string)
			if mode == "sidecar" {
				checkSidecar(t, pod, gw)
			} else {
				checkRBAC(t, o)
			}
			checkFlags(t, gw.Args)
		})
	}
}

// checkWorkload returns the pod template after checking the Deployment's
// selector against it.
func checkWorkload(t *testing.T, o *objects) *corev1.PodTemplateSpec {
	t.Helper()
	d := get[appsv1.Deployment](o, "Deployment")
	sel := labels.SelectorFromSet(d.Spec.Selector.MatchLabels)
	if len(d.Spec.Selector.MatchLabels) == 0 || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Fatalf("deployment selector %v does not match its pods %v", d.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
	}
	return &d.Spec.Template
}

func container(t *testing.T, pod *corev1.PodTemplateSpec, name string) *corev1.Container {
	t.Helper()
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	t.Fatalf("no container %q", name)
	return nil
}

// flagValue returns the value of --name=VALUE in args.
func flagValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// checkGateway: probes on the named port, and a grace period that covers
// the preStop sleep plus --shutdown-timeout.
func checkGateway(t *testing.T, pod *corev1.PodTemplateSpec, gw *corev1.Container) {
	t.Helper()
	if len(gw.Ports) != 1 || gw.Ports[0].Name != "http" {
		t.Fatalf("gateway ports %+v", gw.Ports)
	}
	for _, p := range []struct {
		probe *corev1.Probe
		path  string
	}{{gw.LivenessProbe, "/health"}, {gw.ReadinessProbe, "/health/ready"}} {
		if p.probe == nil || p.probe.HTTPGet == nil || p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Port.String() != "http" {
			t.Fatalf("probe for %s: %+v", p.path, p.probe)
		}
	}
	st, ok := flagValue(gw.Args, "shutdown-timeout")
	secs, err := strconv.Atoi(strings.TrimSuffix(st, "s"))
	if !ok || err != nil || !strings.HasSuffix(st, "s") {
		t.Fatalf("--shutdown-timeout %q", st)
	}
	if gw.Lifecycle == nil || gw.Lifecycle.PreStop == nil || gw.Lifecycle.PreStop.Sleep == nil {
		t.Fatalf("gateway preStop %+v", gw.Lifecycle)
	}
	drain := gw.Lifecycle.PreStop.Sleep.Seconds + int64(secs)
	grace := pod.Spec.TerminationGracePeriodSeconds
	if grace == nil || *grace <= drain {
		t.Fatalf("terminationGracePeriodSeconds %v, want more than %d (preStop sleep + --shutdown-timeout)", grace, drain)
	}
	if gw.SecurityContext == nil || gw.SecurityContext.ReadOnlyRootFilesystem == nil || !*gw.SecurityContext.ReadOnlyRootFilesystem ||
		!mounts(gw, "tmp", "/tmp") {
		t.Fatalf("gateway filesystem: %+v %+v", gw.SecurityContext, gw.VolumeMounts)
	}
}

func mounts(c *corev1.Container, volume, path string) bool {
	for _, m := range c.VolumeMounts {
		if m.Name == volume && m.MountPath == path {
			return true
		}
	}
	return false
}

// checkSelectors: the Service, the PodDisruptionBudget and the
// ServiceMonitor select what they must.
func checkSelectors(t *testing.T, o *objects, pod *corev1.PodTemplateSpec) {
	t.Helper()
	podLabels := labels.Set(pod.Labels)
	svc := get[corev1.Service](o, "Service")
	if len(svc.Spec.Selector) == 0 || !labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels) {
		t.Fatalf("service selector %v vs pod labels %v", svc.Spec.Selector, pod.Labels)
	}
	if a := svc.Spec.SessionAffinity; a != corev1.ServiceAffinityNone && a != corev1.ServiceAffinityClientIP {
		t.Fatalf("service sessionAffinity %q", a)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort.String() != "http" {
		t.Fatalf("service ports %+v", svc.Spec.Ports)
	}
	if pdb := get[policyv1.PodDisruptionBudget](o, "PodDisruptionBudget"); pdb != nil {
		sel := pdb.Spec.Selector
		if sel == nil || len(sel.MatchLabels) == 0 || !labels.SelectorFromSet(sel.MatchLabels).Matches(podLabels) {
			t.Fatalf("PDB selector %+v vs pod labels %v", sel, pod.Labels)
		}
		if (pdb.Spec.MinAvailable == nil) == (pdb.Spec.MaxUnavailable == nil) {
			t.Fatalf("PDB needs exactly one of minAvailable and maxUnavailable: %+v", pdb.Spec)
		}
	}
	if m := get[monv1.ServiceMonitor](o, "ServiceMonitor"); m != nil {
		if !labels.SelectorFromSet(m.Spec.Selector.MatchLabels).Matches(labels.Set(svc.Labels)) || len(m.Spec.Selector.MatchLabels) == 0 {
			t.Fatalf("ServiceMonitor selector %v vs service labels %v", m.Spec.Selector.MatchLabels, svc.Labels)
		}
		if len(m.Spec.Endpoints) != 1 || m.Spec.Endpoints[0].Port != svc.Spec.Ports[0].Name || m.Spec.Endpoints[0].Path != "/metrics" {
			t.Fatalf("ServiceMonitor endpoints %+v", m.Spec.Endpoints)
		}
	}
}

// checkSidecar: one memory-backed emptyDir at /dev/shm in both containers,
// the gateway pointed at the worker's port on localhost, and the worker
// kept alive while the gateway drains.
func checkSidecar(t *testing.T, pod *corev1.PodTemplateSpec, gw *corev1.Container) {
	t.Helper()
	var shm *corev1.Volume
	for i, v := range pod.Spec.Volumes {
		if v.Name == "shm" {
			shm = &pod.Spec.Volumes[i]
		}
	}
	if shm == nil || shm.EmptyDir == nil || shm.EmptyDir.Medium != corev1.StorageMediumMemory || shm.EmptyDir.SizeLimit == nil {
		t.Fatalf("shm volume %+v", shm)
	}
	if len(pod.Spec.Containers) != 2 {
		t.Fatalf("%d containers", len(pod.Spec.Containers))
	}
	for _, c := range pod.Spec.Containers {
		if !mounts(&c, "shm", "/dev/shm") {
			t.Fatalf("container %s does not mount shm at /dev/shm", c.Name)
		}
	}
	w := container(t, pod, "worker")
	if w.Image == "" || len(w.Command) == 0 || len(w.Ports) != 1 {
		t.Fatalf("worker container %+v", w)
	}
	if url, _ := flagValue(gw.Args, "worker"); url != fmt.Sprintf("grpc://127.0.0.1:%d", w.Ports[0].ContainerPort) {
		t.Fatalf("gateway --worker %q, worker port %d", url, w.Ports[0].ContainerPort)
	}
	st, _ := flagValue(gw.Args, "shutdown-timeout")
	secs, _ := strconv.Atoi(strings.TrimSuffix(st, "s"))
	drain := gw.Lifecycle.PreStop.Sleep.Seconds + int64(secs)
	if w.Lifecycle == nil || w.Lifecycle.PreStop == nil || w.Lifecycle.PreStop.Sleep == nil || w.Lifecycle.PreStop.Sleep.Seconds < drain {
		t.Fatalf("worker preStop %+v: must outlast the gateway's drain (%d s)", w.Lifecycle, drain)
	}
	if *pod.Spec.TerminationGracePeriodSeconds <= w.Lifecycle.PreStop.Sleep.Seconds {
		t.Fatalf("grace period %d leaves the worker no time to stop", *pod.Spec.TerminationGracePeriodSeconds)
	}
	if g, ok := flagValue(gw.Args, "shm-group"); ok {
		if fs := pod.Spec.SecurityContext; fs == nil || fs.FSGroup == nil || strconv.FormatInt(*fs.FSGroup, 10) != g {
			t.Fatalf("--shm-group %s without the matching fsGroup: %+v", g, pod.Spec.SecurityContext)
		}
	}
	if pod.Spec.AutomountServiceAccountToken == nil || *pod.Spec.AutomountServiceAccountToken {
		t.Fatal("sidecar pods need no API token")
	}
}

// checkRBAC: discovery gets exactly get/list/watch on pods, bound to the
// pods' service account, in the watched namespace or cluster-wide.
func checkRBAC(t *testing.T, o *objects) {
	t.Helper()
	pod := get[appsv1.Deployment](o, "Deployment").Spec.Template.Spec
	role, binding := get[rbacv1.Role](o, "Role"), get[rbacv1.RoleBinding](o, "RoleBinding")
	crole, cbinding := get[rbacv1.ClusterRole](o, "ClusterRole"), get[rbacv1.ClusterRoleBinding](o, "ClusterRoleBinding")
	discovery := slices.Contains(pod.Containers[0].Args, "--service-discovery")
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken != discovery {
		t.Fatalf("automountServiceAccountToken %v with discovery %v", pod.AutomountServiceAccountToken, discovery)
	}
	ns, nsFlag := flagValue(pod.Containers[0].Args, "service-discovery-namespace")
	switch {
	case !discovery:
		if role != nil || crole != nil || binding != nil || cbinding != nil {
			t.Fatal("RBAC objects without discovery")
		}
	case crole != nil:
		if nsFlag {
			t.Fatal("cluster-wide discovery restricted to a namespace")
		}
		checkRules(t, crole.Rules)
		checkSubject(t, cbinding.RoleRef, cbinding.Subjects, "ClusterRole", crole.Name, pod.ServiceAccountName)
	default:
		if !nsFlag || role.Namespace != ns || binding.Namespace != ns {
			t.Fatalf("Role in %q, binding in %q, discovery watches %q", role.Namespace, binding.Namespace, ns)
		}
		checkRules(t, role.Rules)
		checkSubject(t, binding.RoleRef, binding.Subjects, "Role", role.Name, pod.ServiceAccountName)
	}
}

func checkRules(t *testing.T, rules []rbacv1.PolicyRule) {
	t.Helper()
	if len(rules) != 1 || !slices.Equal(rules[0].APIGroups, []string{""}) || !slices.Equal(rules[0].Resources, []string{"pods"}) ||
		!slices.Equal(rules[0].Verbs, []string{"get", "list", "watch"}) {
		t.Fatalf("rules %+v, want get/list/watch on pods only", rules)
	}
}

func checkSubject(t *testing.T, ref rbacv1.RoleRef, subjects []rbacv1.Subject, kind, name, account string) {
	t.Helper()
	if ref.Kind != kind || ref.Name != name || ref.APIGroup != rbacv1.GroupName {
		t.Fatalf("roleRef %+v, want %s/%s", ref, kind, name)
	}
	if len(subjects) != 1 || subjects[0].Kind != "ServiceAccount" || subjects[0].Name != account || subjects[0].Namespace != releaseNS {
		t.Fatalf("subjects %+v, want ServiceAccount %s/%s", subjects, releaseNS, account)
	}
}

// TestLint runs Helm's linter on the chart with each value set.
func TestLint(t *testing.T) {
	kv, err := chartutil.ParseKubeVersion("v1.30.0")
	if err != nil {
		t.Fatal(err)
	}
	for _, vs := range valueSets {
		vals := vs.vals
		if vals == nil {
			vals = map[string]any{}
		}
		res := lint.AllWithKubeVersion(chartDir, vals, releaseNS, kv)
		for _, m := range res.Messages {
			if m.Severity >= support.WarningSev {
				t.Errorf("%s: %v", vs.name, m)
			}
		}
	}
}
