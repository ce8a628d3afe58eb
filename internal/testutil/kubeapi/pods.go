package kubeapi

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Pod returns a pod in phase Running with condition Ready=True, the given
// pod IP and labels, and no UID (Apply assigns one).
func Pod(namespace, name, ip string, labels map[string]string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec:       corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "worker", Image: "worker"}}},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip},
	}
	SetReady(p, true)
	return p
}

// SetReady sets the pod's Ready condition to True or False.
func SetReady(p *corev1.Pod, ready bool) {
	s := corev1.ConditionFalse
	if ready {
		s = corev1.ConditionTrue
	}
	for i, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			p.Status.Conditions[i].Status = s
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: s})
}

// Annotate sets one annotation.
func Annotate(p *corev1.Pod, key, value string) {
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.Annotations[key] = value
}
