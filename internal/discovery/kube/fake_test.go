package kube

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	clienttesting "k8s.io/client-go/testing"

	"github.com/mmgate/mmgate/internal/testutil/kubeapi"
)

// fakePods is the fake clientset's Pods, declaring (as the clientset
// itself does) that it cannot serve the streaming list.
type fakePods struct{ corev1client.PodInterface }

func (fakePods) IsWatchListSemanticsUnSupported() bool { return true }

func TestNewOptions(t *testing.T) {
	sink := newTestSink(t)
	pods := fakePods{fake.NewClientset().CoreV1().Pods("")}
	for _, o := range []Options{
		{Sink: sink, Client: pods},
		{Selector: []string{"app=x"}, Client: pods},
		{Selector: []string{"app=x"}, Sink: sink, Client: pods, Port: 70000},
		{Selector: []string{"app=x"}, Sink: sink, Client: pods, Port: -1},
		{Selector: []string{"app=x"}, Sink: sink, Client: pods, Resync: -1},
	} {
		if _, err := New(o); !errors.Is(err, ErrBadOptions) {
			t.Errorf("New(%+v): %v, want ErrBadOptions", o, err)
		}
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	if _, err := New(Options{Selector: []string{"app=x"}, Sink: sink}); !errors.Is(err, ErrConfig) {
		t.Errorf("outside a cluster without kubeconfig: %v, want ErrConfig", err)
	}
	if _, err := New(Options{Selector: []string{"app=x"}, Sink: sink, Kubeconfig: "/nonexistent/kubeconfig"}); !errors.Is(err, ErrConfig) {
		t.Errorf("missing kubeconfig: %v, want ErrConfig", err)
	}
	d, err := New(Options{Selector: []string{"tier=gpu", "app=x"}, Sink: sink, Client: pods})
	if err != nil || d.Selector() != "app=x,tier=gpu" || d.port != DefaultPort || d.resync != DefaultResync {
		t.Fatalf("defaults: %v %+v", err, d)
	}
}

// TestFakeClientset runs the informer against client-go's fake clientset.
// The fake does not apply label selectors to watches, so this also shows
// that pods are re-checked against the selector here.
func TestFakeClientset(t *testing.T) {
	other := kubeapi.Pod("ml", "other", "10.0.0.9", map[string]string{"app": "other"})
	other.UID = "u-other"
	a := kubeapi.Pod("ml", "a", "10.0.0.1", map[string]string{"app": "vl"})
	a.UID = "u-a"
	b := kubeapi.Pod("ml", "b", "10.0.0.2", map[string]string{"app": "vl"})
	b.UID = "u-b"
	kubeapi.SetReady(b, false)
	cs := fake.NewClientset(a, b, other)
	watching := make(chan struct{})
	cs.PrependWatchReactor("pods", func(action clienttesting.Action) (bool, watch.Interface, error) {
		wa := action.(clienttesting.WatchActionImpl)
		w, err := cs.Tracker().Watch(action.GetResource(), action.GetNamespace(), wa.ListOptions)
		if err == nil {
			close(watching)
		}
		return true, w, err
	})
	sink := newTestSink(t)
	d, err := New(Options{Selector: []string{"app=vl"}, Sink: sink, Client: fakePods{cs.CoreV1().Pods("ml")}})
	if err != nil {
		t.Fatal(err)
	}
	runDiscovery(t, d)
	sink.waitPods(t, "initial list", "a grpc://10.0.0.1:50051")
	<-watching
	ctx := context.Background()
	pods := cs.CoreV1().Pods("ml")
	update := func(p *corev1.Pod) {
		t.Helper()
		if _, err := pods.Update(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	kubeapi.SetReady(b, true)
	update(b)
	sink.waitPods(t, "b ready", "a grpc://10.0.0.1:50051", "b grpc://10.0.0.2:50051")

	kubeapi.SetReady(a, false)
	update(a)
	sink.waitPods(t, "a not ready", "b grpc://10.0.0.2:50051")

	// A ready pod without the label: the fake's watch delivers it; it must
	// not become a worker.
	stray := kubeapi.Pod("ml", "stray", "10.0.0.3", map[string]string{"app": "nope"})
	stray.UID = "u-stray"
	if _, err := pods.Create(ctx, stray, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c := kubeapi.Pod("ml", "c", "10.0.0.4", map[string]string{"app": "vl"})
	c.UID = "u-c"
	kubeapi.Annotate(c, AnnotationPort, "7000")
	if _, err := pods.Create(ctx, c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sink.waitPods(t, "c created", "b grpc://10.0.0.2:50051", "c grpc://10.0.0.4:7000")

	if err := pods.Delete(ctx, "b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	sink.waitPods(t, "b deleted", "c grpc://10.0.0.4:7000")

	kubeapi.SetReady(a, true)
	update(a)
	sink.waitPods(t, "a ready again", "a grpc://10.0.0.1:50051", "c grpc://10.0.0.4:7000")

	st := d.Status()
	if !st.Synced || len(st.Workers) != 2 || stateCounts(st) != "invalid=0 not_ready=0 ready=2 terminating=0" {
		t.Fatalf("status %+v", st)
	}
	checkFakeSelectors(t, cs)
	if calls := strings.Join(sink.calls(), "\n"); strings.Contains(calls, "stray") || strings.Contains(calls, "other") {
		t.Fatalf("unmatched pods reported:\n%s", calls)
	}
}

// checkFakeSelectors: the selector went to the "server" in the list and in
// the watch.
func checkFakeSelectors(t *testing.T, cs *fake.Clientset) {
	t.Helper()
	var lists, watches int
	for _, act := range cs.Actions() {
		switch a := act.(type) {
		case clienttesting.ListActionImpl:
			lists++
			if s := a.GetListRestrictions().Labels.String(); s != "app=vl" {
				t.Errorf("list selector %q", s)
			}
		case clienttesting.WatchActionImpl:
			watches++
			if s := a.GetWatchRestrictions().Labels.String(); s != "app=vl" {
				t.Errorf("watch selector %q", s)
			}
		}
	}
	if lists == 0 || watches == 0 {
		t.Fatalf("%d lists, %d watches", lists, watches)
	}
}

// TestFakeWatchIgnoresSelector pins down the fake's behaviour that
// TestFakeClientset relies on: its watch delivers pods whatever their
// labels, so only the re-check in Classify keeps unmatched pods out.
func TestFakeWatchIgnoresSelector(t *testing.T) {
	cs := fake.NewClientset()
	ctx := context.Background()
	w, err := cs.CoreV1().Pods("ml").Watch(ctx, metav1.ListOptions{LabelSelector: "app=vl"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	stray := kubeapi.Pod("ml", "stray", "10.0.0.3", map[string]string{"app": "nope"})
	if _, err := cs.CoreV1().Pods("ml").Create(ctx, stray, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		if p, ok := ev.Object.(*corev1.Pod); !ok || p.Name != "stray" {
			t.Fatalf("event %+v", ev)
		}
	case <-time.After(10 * time.Second):
		t.Skip("the fake's watch now applies label selectors")
	}
}
