package discovery

import (
	"errors"
	"fmt"
)

// ErrBadWorker: a pod's discovery annotations have a value the gateway
// cannot use (the provider reports the pod as StateInvalid).
var ErrBadWorker = errors.New("bad worker annotation")

// Runtime names the inference server behind a worker URL.
type Runtime string

// Runtimes a pod may declare; RuntimeDetect (empty) lets the gateway find
// out from the worker itself.
const (
	RuntimeDetect     Runtime = ""
	RuntimeTokenSpeed Runtime = "tokenspeed"
	RuntimeVLLM       Runtime = "vllm"
	RuntimeSGLang     Runtime = "sglang"
)

// ParseRuntime checks a runtime name: tokenspeed, vllm, sglang, or empty
// (detect). Case matters, as it does for Kubernetes label values.
func ParseRuntime(s string) (Runtime, error) {
	switch r := Runtime(s); r {
	case RuntimeDetect, RuntimeTokenSpeed, RuntimeVLLM, RuntimeSGLang:
		return r, nil
	}
	return "", fmt.Errorf("discovery: runtime %q (want tokenspeed, vllm or sglang): %w", s, ErrBadWorker)
}

// Worker is one inference server a provider found. URL and PodUID are its
// identity; the rest describe it.
type Worker struct {
	// URL is where the gateway dials it: grpc://HOST:PORT.
	URL string `json:"url"`
	// PodUID is the Kubernetes pod UID (a restarted pod has a new one).
	PodUID string `json:"pod_uid"`
	// Namespace and PodName name the pod, for logs and health details.
	Namespace string `json:"namespace"`
	PodName   string `json:"pod_name"`
	// Node is the pod's node (spec.nodeName), empty when not scheduled.
	Node string `json:"node"`
	// Runtime is the declared inference server; empty: detect.
	Runtime Runtime `json:"runtime"`
	// Model is the served model name to use; empty: the worker's own.
	Model string `json:"model"`
}

// Pod returns "namespace/name", as kubectl names a pod.
func (w Worker) Pod() string { return w.Namespace + "/" + w.PodName }

// State is what a provider made of one matching pod.
type State string

// States, as reported in Status.Pods and in log lines.
const (
	// StateReady: usable, in the desired set.
	StateReady State = "ready"
	// StateNotReady: not Running, not Ready, or no pod IP yet.
	StateNotReady State = "not_ready"
	// StateTerminating: has a deletion timestamp (out of rotation at once,
	// even while its Ready condition is still true).
	StateTerminating State = "terminating"
	// StateInvalid: a discovery annotation has a bad value.
	StateInvalid State = "invalid"
)

// States lists every State in a fixed order (for metrics and details).
func States() []State {
	return []State{StateReady, StateNotReady, StateTerminating, StateInvalid}
}

// PodState is one matching pod as a provider classified it.
type PodState struct {
	Worker Worker // the fields known for the pod (URL empty when unknown)
	State  State
	Reason string // why the pod is not ready or invalid; empty when ready
}
