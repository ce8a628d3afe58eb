package kube

import (
	"fmt"
	"net"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/mmgate/mmgate/internal/discovery"
)

// Pod annotations read by discovery.
const (
	AnnotationPort    = "mmgate.io/port"
	AnnotationRuntime = "mmgate.io/runtime"
	AnnotationModel   = "mmgate.io/model"
)

// Classify decides what pod is: ok is false when its labels do not match
// sel (it is then none of discovery's business); otherwise the returned
// state says whether it is a usable worker, with the worker's fields as far
// as they are known and, when not ready, the reason. port is the default
// worker port.
func Classify(pod *corev1.Pod, sel labels.Selector, port int) (ps discovery.PodState, ok bool) {
	if pod == nil || !sel.Matches(labels.Set(pod.Labels)) {
		return discovery.PodState{}, false
	}
	w := discovery.Worker{
		PodUID:    string(pod.UID),
		Namespace: pod.Namespace,
		PodName:   pod.Name,
		Node:      pod.Spec.NodeName,
		Model:     pod.Annotations[AnnotationModel],
	}
	state := func(s discovery.State, reason string) (discovery.PodState, bool) {
		return discovery.PodState{Worker: w, State: s, Reason: reason}, true
	}
	if pod.DeletionTimestamp != nil {
		return state(discovery.StateTerminating, "deletion requested")
	}
	if w.PodUID == "" {
		return state(discovery.StateInvalid, "no metadata.uid")
	}
	rt, err := discovery.ParseRuntime(pod.Annotations[AnnotationRuntime])
	if err != nil {
		return state(discovery.StateInvalid, fmt.Sprintf("annotation %s: %v", AnnotationRuntime, err))
	}
	w.Runtime = rt
	if s, set := pod.Annotations[AnnotationPort]; set {
		p, err := strconv.Atoi(s)
		if err != nil || p < 1 || p > 65535 || s != strconv.Itoa(p) {
			return state(discovery.StateInvalid, fmt.Sprintf("annotation %s: %q is not a port (1-65535)", AnnotationPort, s))
		}
		port = p
	}
	if pod.Status.Phase != corev1.PodRunning {
		return state(discovery.StateNotReady, "phase "+phase(pod.Status.Phase))
	}
	if r := readyCondition(pod); r != corev1.ConditionTrue {
		return state(discovery.StateNotReady, "condition Ready is "+string(r))
	}
	ip := net.ParseIP(pod.Status.PodIP)
	if ip == nil {
		return state(discovery.StateNotReady, "no pod IP")
	}
	w.URL = "grpc://" + net.JoinHostPort(ip.String(), strconv.Itoa(port))
	return state(discovery.StateReady, "")
}

func phase(p corev1.PodPhase) string {
	if p == "" {
		return "unset"
	}
	return string(p)
}

// readyCondition is the status of the pod's Ready condition ("Unknown"
// when the pod has none).
func readyCondition(pod *corev1.Pod) corev1.ConditionStatus {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status
		}
	}
	return corev1.ConditionUnknown
}
