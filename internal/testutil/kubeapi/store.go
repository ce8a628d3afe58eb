package kubeapi

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// store holds the pods and the retained history of changes.
type store struct {
	rv      int64
	minRV   int64 // watches from a resource version below this get 410
	pods    map[string]*corev1.Pod
	history []change
	uids    int
}

// change is one event in the history: the pod after (and before) it.
type change struct {
	rv       int64
	typ      watch.EventType
	obj, old *corev1.Pod // old is nil for ADDED
}

func (st *store) init() {
	st.rv = 100
	st.pods = map[string]*corev1.Pod{}
}

func key(ns, name string) string { return ns + "/" + name }

// Apply creates the pod or replaces the one with its namespace and name
// (ADDED or MODIFIED). A new pod without a UID gets one; a replaced pod
// keeps its UID unless p sets another. It returns the stored pod.
func (s *Server) Apply(p *corev1.Pod) *corev1.Pod {
	return s.mutate(p.Namespace, p.Name, replaceWith(p), false)
}

// ApplySilently is Apply without a watch event: the history is compacted
// past it, so only a client that re-lists can see it (Expire makes the
// watching clients re-list).
func (s *Server) ApplySilently(p *corev1.Pod) *corev1.Pod {
	return s.mutate(p.Namespace, p.Name, replaceWith(p), true)
}

// replaceWith replaces a stored pod with a copy of p, keeping the stored
// UID unless p sets one.
func replaceWith(p *corev1.Pod) func(old *corev1.Pod) *corev1.Pod {
	return func(old *corev1.Pod) *corev1.Pod {
		n := p.DeepCopy()
		if n.UID == "" && old != nil {
			n.UID = old.UID
		}
		return n
	}
}

// Update changes a stored pod with f (MODIFIED). It fails the test run by
// panicking when the pod does not exist, as that is a bug in the test.
func (s *Server) Update(ns, name string, f func(*corev1.Pod)) *corev1.Pod {
	return s.mutate(ns, name, func(old *corev1.Pod) *corev1.Pod {
		if old == nil {
			panic(fmt.Sprintf("kubeapi: Update: no pod %s/%s", ns, name))
		}
		n := old.DeepCopy()
		f(n)
		return n
	}, false)
}

// Terminate sets the pod's deletion timestamp (MODIFIED), as a delete with
// a grace period does first.
func (s *Server) Terminate(ns, name string) *corev1.Pod {
	return s.Update(ns, name, func(p *corev1.Pod) {
		now := metav1.NewTime(time.Now())
		grace := int64(30)
		p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &now, &grace
	})
}

// Delete removes the pod (DELETED).
func (s *Server) Delete(ns, name string) {
	s.mutate(ns, name, func(*corev1.Pod) *corev1.Pod { return nil }, false)
}

// DeleteSilently removes the pod without a watch event (see ApplySilently).
func (s *Server) DeleteSilently(ns, name string) {
	s.mutate(ns, name, func(*corev1.Pod) *corev1.Pod { return nil }, true)
}

// Pods returns copies of the stored pods.
func (s *Server) Pods() []*corev1.Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*corev1.Pod, 0, len(s.store.pods))
	for _, p := range s.store.pods {
		out = append(out, p.DeepCopy())
	}
	return out
}

// mutate applies f to the pod at ns/name (nil when absent; f returns nil
// to delete), records the change and sends it to the open watches unless
// silent.
func (s *Server) mutate(ns, name string, f func(old *corev1.Pod) *corev1.Pod, silent bool) *corev1.Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &s.store
	k := key(ns, name)
	old := st.pods[k]
	n := f(old)
	if n == nil && old == nil {
		return nil
	}
	st.rv++
	c := change{rv: st.rv, old: old}
	switch {
	case n == nil:
		c.typ, c.obj = watch.Deleted, old.DeepCopy()
		c.obj.ResourceVersion = strconv.FormatInt(st.rv, 10)
		delete(st.pods, k)
	default:
		n.Namespace, n.Name = ns, name
		n.TypeMeta = metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"}
		if n.UID == "" {
			st.uids++
			n.UID = types.UID(fmt.Sprintf("uid-%s-%d", name, st.uids))
		}
		if n.CreationTimestamp.IsZero() {
			n.CreationTimestamp = metav1.NewTime(time.Now().Truncate(time.Second))
		}
		n.ResourceVersion = strconv.FormatInt(st.rv, 10)
		c.typ, c.obj = watch.Modified, n
		if old == nil {
			c.typ = watch.Added
		}
		st.pods[k] = n
	}
	if silent {
		st.history, st.minRV = nil, st.rv
		return n.DeepCopy()
	}
	st.history = append(st.history, c)
	for w := range s.watchers {
		w.offer(c)
	}
	if n == nil {
		return nil
	}
	return n.DeepCopy()
}

// Expire forgets the history (as etcd compaction does) and ends every open
// watch with a 410 Gone ERROR event; clients re-list.
func (s *Server) Expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store.history, s.store.minRV = nil, s.store.rv
	for w := range s.watchers {
		w.close(gone("too old resource version (expired by the test)"))
	}
}

// ForgetHistory compacts the history without touching open watches, as a
// restarted API server's empty watch cache does: a watch that resumes from
// an older resource version gets 410 Gone.
func (s *Server) ForgetHistory() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store.history, s.store.minRV = nil, s.store.rv
}

// DropWatches ends every open watch cleanly; clients watch again from
// their last resource version without re-listing.
func (s *Server) DropWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		w.close(nil)
	}
}

func gone(msg string) *metav1.Status {
	e := errors.NewResourceExpired(msg)
	st := e.Status()
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	return &st
}
