package kube

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mmgate/mmgate/internal/discovery"
)

func testPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "w-0", UID: "u-0",
			Labels: map[string]string{"app": "vl", "tier": "gpu"}},
		Spec: corev1.PodSpec{NodeName: "n1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.1.2.3",
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue},
			}},
	}
}

func TestClassify(t *testing.T) {
	sel, err := ParseSelector([]string{"app=vl", "tier=gpu"})
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	type want struct {
		match  bool
		state  discovery.State
		url    string
		reason string // substring
	}
	cases := []struct {
		name string
		edit func(p *corev1.Pod)
		want want
	}{
		{"ready", func(*corev1.Pod) {}, want{true, discovery.StateReady, "grpc://10.1.2.3:50051", ""}},
		{"port annotation", func(p *corev1.Pod) { p.Annotations = map[string]string{AnnotationPort: "8001"} },
			want{true, discovery.StateReady, "grpc://10.1.2.3:8001", ""}},
		{"ipv6", func(p *corev1.Pod) { p.Status.PodIP = "fd00::7" },
			want{true, discovery.StateReady, "grpc://[fd00::7]:50051", ""}},
		{"selector half matches", func(p *corev1.Pod) { p.Labels["tier"] = "cpu" }, want{false, "", "", ""}},
		{"no labels", func(p *corev1.Pod) { p.Labels = nil }, want{false, "", "", ""}},
		{"pending", func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending },
			want{true, discovery.StateNotReady, "", "phase Pending"}},
		{"no phase", func(p *corev1.Pod) { p.Status.Phase = "" },
			want{true, discovery.StateNotReady, "", "phase unset"}},
		{"succeeded", func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded },
			want{true, discovery.StateNotReady, "", "phase Succeeded"}},
		{"not ready", func(p *corev1.Pod) { p.Status.Conditions[1].Status = corev1.ConditionFalse },
			want{true, discovery.StateNotReady, "", "Ready is False"}},
		{"no ready condition", func(p *corev1.Pod) { p.Status.Conditions = p.Status.Conditions[:1] },
			want{true, discovery.StateNotReady, "", "Ready is Unknown"}},
		{"no ip", func(p *corev1.Pod) { p.Status.PodIP = "" },
			want{true, discovery.StateNotReady, "", "no pod IP"}},
		{"bad ip", func(p *corev1.Pod) { p.Status.PodIP = "10.1.2" },
			want{true, discovery.StateNotReady, "", "no pod IP"}},
		{"terminating while ready", func(p *corev1.Pod) { p.DeletionTimestamp = &now },
			want{true, discovery.StateTerminating, "", "deletion"}},
		{"terminating with a bad annotation", func(p *corev1.Pod) {
			p.DeletionTimestamp = &now
			p.Annotations = map[string]string{AnnotationPort: "x"}
		}, want{true, discovery.StateTerminating, "", "deletion"}},
		{"bad port text", func(p *corev1.Pod) { p.Annotations = map[string]string{AnnotationPort: "80a"} },
			want{true, discovery.StateInvalid, "", "mmgate.io/port"}},
		{"port zero", func(p *corev1.Pod) { p.Annotations = map[string]string{AnnotationPort: "0"} },
			want{true, discovery.StateInvalid, "", "not a port"}},
		{"port too big", func(p *corev1.Pod) { p.Annotations = map[string]string{AnnotationPort: "65536"} },
			want{true, discovery.StateInvalid, "", "not a port"}},
		{"port with plus", func(p *corev1.Pod) { p.Annotations = map[string]string{AnnotationPort: "+80"} },
			want{true, discovery.StateInvalid, "", "not a port"}},
		{"empty port annotation", func(p *corev1.Pod) { p.Annotations = map[string]string{AnnotationPort: ""} },
			want{true, discovery.StateInvalid, "", "not a port"}},
		{"bad runtime", func(p *corev1.Pod) { p.Annotations = map[string]string{AnnotationRuntime: "triton"} },
			want{true, discovery.StateInvalid, "", "mmgate.io/runtime"}},
		{"bad runtime on a pending pod", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodPending
			p.Annotations = map[string]string{AnnotationRuntime: "VLLM"}
		}, want{true, discovery.StateInvalid, "", "runtime"}},
		{"no uid", func(p *corev1.Pod) { p.UID = "" }, want{true, discovery.StateInvalid, "", "uid"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := testPod()
			tc.edit(p)
			ps, ok := Classify(p, sel, DefaultPort)
			if ok != tc.want.match {
				t.Fatalf("match %v, want %v", ok, tc.want.match)
			}
			if !ok {
				return
			}
			if ps.State != tc.want.state || ps.Worker.URL != tc.want.url || !strings.Contains(ps.Reason, tc.want.reason) {
				t.Fatalf("got %+v, want %+v", ps, tc.want)
			}
			if tc.want.state == discovery.StateReady && ps.Reason != "" {
				t.Fatalf("ready with reason %q", ps.Reason)
			}
			if ps.Worker.PodName != "w-0" || ps.Worker.Namespace != "ml" || ps.Worker.Node != "n1" {
				t.Fatalf("pod fields %+v", ps.Worker)
			}
		})
	}
}

func TestClassifyAnnotations(t *testing.T) {
	sel, _ := ParseSelector([]string{"app=vl"})
	p := testPod()
	p.Annotations = map[string]string{AnnotationRuntime: "vllm", AnnotationModel: "qwen3-vl", AnnotationPort: "9000"}
	ps, ok := Classify(p, sel, 1234)
	want := discovery.Worker{URL: "grpc://10.1.2.3:9000", PodUID: "u-0", Namespace: "ml", PodName: "w-0",
		Node: "n1", Runtime: discovery.RuntimeVLLM, Model: "qwen3-vl"}
	if !ok || ps.State != discovery.StateReady || ps.Worker != want {
		t.Fatalf("got %+v", ps)
	}
	delete(p.Annotations, AnnotationPort)
	if ps, _ := Classify(p, sel, 1234); ps.Worker.URL != "grpc://10.1.2.3:1234" {
		t.Fatalf("default port: %s", ps.Worker.URL)
	}
	if _, ok := Classify(nil, sel, 1); ok {
		t.Fatal("nil pod matched")
	}
}

func TestParseSelector(t *testing.T) {
	sel, err := ParseSelector([]string{"b=2", "a=1", "a=1"})
	if err != nil || sel.String() != "a=1,b=2" {
		t.Fatalf("%v %v", sel, err)
	}
	if sel, err := ParseSelector([]string{"app.kubernetes.io/name=mmgate-worker", "empty="}); err != nil ||
		sel.String() != "app.kubernetes.io/name=mmgate-worker,empty=" {
		t.Fatalf("%v %v", sel, err)
	}
	for _, bad := range [][]string{nil, {}, {"novalue"}, {"=v"}, {"a=1", "a=2"}, {"bad key!=v"}, {"k=bad value"},
		{"k=" + strings.Repeat("v", 64)}} {
		if _, err := ParseSelector(bad); !errors.Is(err, ErrBadOptions) {
			t.Errorf("ParseSelector(%q) error %v, want ErrBadOptions", bad, err)
		}
	}
}
