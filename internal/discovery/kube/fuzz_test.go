package kube

import (
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/mmgate/mmgate/internal/discovery"
)

// FuzzClassify: any annotations, IP and phase give a state, never a panic;
// a ready pod's URL is grpc://IP:PORT with a real IP and port.
func FuzzClassify(f *testing.F) {
	f.Add("10.0.0.1", "Running", "True", "8000", "vllm", "m")
	f.Add("fd00::1", "Running", "True", "", "", "")
	f.Add("10.0.0.1", "Pending", "False", "0", "tokenspeed", "")
	f.Add("not-an-ip", "Running", "True", "65536", "sglang", "x")
	f.Add("::ffff:10.0.0.1", "Running", "Unknown", "-1", "VLLM", "")
	sel, err := ParseSelector([]string{"app=vl"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, ip, phase, ready, port, runtime, model string) {
		p := testPod()
		p.Labels = map[string]string{"app": "vl"}
		p.Status.PodIP, p.Status.Phase = ip, corev1.PodPhase(phase)
		p.Status.Conditions[1].Status = corev1.ConditionStatus(ready)
		p.Annotations = map[string]string{AnnotationRuntime: runtime, AnnotationModel: model}
		if port != "" {
			p.Annotations[AnnotationPort] = port
		}
		ps, ok := Classify(p, sel, DefaultPort)
		if !ok {
			t.Fatal("a matching pod was not considered")
		}
		if ps.State != discovery.StateReady {
			if ps.Worker.URL != "" || ps.Reason == "" {
				t.Fatalf("state %s with url %q reason %q", ps.State, ps.Worker.URL, ps.Reason)
			}
			return
		}
		u, err := url.Parse(ps.Worker.URL)
		if err != nil || u.Scheme != "grpc" || net.ParseIP(u.Hostname()) == nil {
			t.Fatalf("url %q: %v", ps.Worker.URL, err)
		}
		n, err := strconv.Atoi(u.Port())
		if err != nil || n < 1 || n > 65535 || phase != "Running" || ready != "True" || ps.Worker.Model != model {
			t.Fatalf("ready pod %+v from ip %q port %q phase %q ready %q", ps.Worker, ip, port, phase, ready)
		}
	})
}

// FuzzParseSelector: a selector is accepted only as KEY=VALUE pairs, and
// what is accepted round-trips through its string form.
func FuzzParseSelector(f *testing.F) {
	f.Add("app=vl", "tier=gpu")
	f.Add("app.kubernetes.io/name=x", "=")
	f.Add("a=1", "a=2")
	f.Add("k", "v=w=x")
	f.Fuzz(func(t *testing.T, a, b string) {
		sel, err := ParseSelector([]string{a, b})
		if err != nil {
			if !errors.Is(err, ErrBadOptions) {
				t.Fatalf("error %v is not ErrBadOptions", err)
			}
			return
		}
		for _, p := range []string{a, b} {
			k, _, ok := strings.Cut(p, "=")
			if !ok || k == "" {
				t.Fatalf("accepted %q", p)
			}
		}
		if again, err := ParseSelector(strings.Split(sel.String(), ",")); err != nil || again.String() != sel.String() {
			t.Fatalf("%q does not round-trip: %v", sel.String(), err)
		}
	})
}
