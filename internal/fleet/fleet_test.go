package fleet

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/engine/builtin"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/internal/demomodel"
	"github.com/mmgate/mmgate/internal/discovery"
	"github.com/mmgate/mmgate/internal/testutil/procs"
	"github.com/mmgate/mmgate/refworker"
	"github.com/mmgate/mmgate/refworker/refworkertest"
)

var modelDir = sync.OnceValues(func() (string, error) {
	d, err := os.MkdirTemp("", "fleet-test-")
	if err != nil {
		return "", err
	}
	return demomodel.Materialize(d)
})

func TestMain(m *testing.M) {
	code := m.Run()
	if d, err := modelDir(); err == nil {
		os.RemoveAll(filepath.Dir(d))
	}
	os.Exit(code)
}

// worker serves a reference worker in the test's process; it returns its
// URL.
func worker(t *testing.T, mod func(*refworker.Options)) string {
	t.Helper()
	dir, err := modelDir()
	if err != nil {
		t.Fatal(err)
	}
	return refworkertest.Start(t, dir, t.TempDir(), mod)
}

// setup starts an engine with the static workers and a Fleet over it.
func setup(t *testing.T, static ...string) (*engine.Engine, *Fleet, *prometheus.Registry) {
	t.Helper()
	o := engine.Options{Protocols: builtin.Protocols(), HealthInterval: 50 * time.Millisecond, HealthTimeout: 5 * time.Second}
	for _, u := range static {
		o.Workers = append(o.Workers, engine.WorkerConfig{URL: u})
	}
	eng, err := engine.New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	f, err := New(Options{Engine: eng, Backoff: discovery.BackoffOptions{Base: 200 * time.Millisecond, Max: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	f.Attach("test", func() discovery.Status {
		return discovery.Status{Synced: true, Pods: map[discovery.State]int{discovery.StateReady: 1}}
	})
	reg := prometheus.NewRegistry()
	reg.MustRegister(f.Collector())
	return eng, f, reg
}

func pod(url, uid string) discovery.Worker {
	return discovery.Worker{URL: url, PodUID: uid, Namespace: "ns", PodName: "p-" + uid}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	procs.WaitFor(t, nil, cond, what)
}

func state(f *Fleet, url string) string {
	for _, w := range f.Details().Workers {
		if w.URL == url {
			return w.State
		}
	}
	return ""
}

// series reports whether reg exposes the sample line want (e.g.
// `mmgate_workers{state="healthy"} 1`).
func series(t *testing.T, reg *prometheus.Registry, want string) bool {
	t.Helper()
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return slices.Contains(strings.Split(rec.Body.String(), "\n"), want)
}

func TestAddUseRemove(t *testing.T) {
	eng, f, reg := setup(t)
	url := worker(t, func(o *refworker.Options) { o.TokenDelay = 20 * time.Millisecond })
	if _, err := eng.Pick(demomodel.Name, nil, nil); !errors.Is(err, engine.ErrModelNotFound) {
		t.Fatalf("before discovery: %v", err)
	}
	f.AddWorker(pod(url, "u1"))
	waitFor(t, "discovered worker healthy", func() bool { return state(f, url) == StateHealthy })
	for _, want := range []string{`mmgate_workers{state="healthy"} 1`, `mmgate_discovery_pods{state="ready"} 1`, `mmgate_discovery_synced 1`} {
		if !series(t, reg, want) {
			t.Fatalf("no %s", want)
		}
	}
	w, err := eng.Pick(demomodel.Name, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	max := uint32(50)
	s, err := eng.Generate(context.Background(), w, &protocol.Request{ID: "r1", InputIDs: []uint32{1, 2, 3}, Stream: true,
		Sampling: protocol.Sampling{MaxTokens: &max, IgnoreEOS: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Removed with a request in flight: out of the rotation at once, the
	// request finishes, then it is gone.
	f.RemoveWorker(pod(url, "u1"))
	if _, err := eng.Pick(demomodel.Name, nil, nil); !errors.Is(err, engine.ErrNoWorker) {
		t.Fatalf("after removal: %v (want no_worker: the model is remembered)", err)
	}
	if !series(t, reg, `mmgate_workers{state="draining"} 1`) {
		t.Fatal("the removed worker with a request in flight is not draining")
	}
	n := 0
	for {
		ev, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the request in flight failed: %v", err)
		}
		n += len(ev.Tokens)
	}
	s.Close()
	if n != 50 {
		t.Fatalf("%d tokens, want 50", n)
	}
	if !series(t, reg, `mmgate_workers{state="draining"} 0`) {
		t.Fatal("still draining after the last request")
	}
	if len(f.Details().Workers) != 0 || eng.Has(url) {
		t.Fatal("the removed worker is still known")
	}
}

// A pod that comes and goes is registered again only after its URL's
// backoff: 200 ms, then 400 ms.
func TestFlappingWorkerBacksOff(t *testing.T) {
	eng, f, reg := setup(t)
	url := worker(t, nil)
	f.AddWorker(pod(url, "u1"))
	f.RemoveWorker(pod(url, "u1")) // within the flap window
	f.AddWorker(pod(url, "u1"))
	if st := state(f, url); st != StateWaiting || eng.Has(url) {
		t.Fatalf("re-added at once: state %q", st)
	}
	if !series(t, reg, `mmgate_workers{state="waiting"} 1`) {
		t.Fatal("the delayed worker is not waiting")
	}
	if d := f.Details().Workers[0].DialInMS; d <= 0 || d > 200 {
		t.Fatalf("dial in %d ms, want (0, 200]", d)
	}
	t0 := time.Now()
	waitFor(t, "delayed registration", func() bool { return eng.Has(url) })
	if el := time.Since(t0); el < 100*time.Millisecond {
		t.Fatalf("registered after %v", el)
	}
	f.RemoveWorker(pod(url, "u1"))
	f.AddWorker(pod(url, "u2"))
	if d := f.Details().Workers[0].DialInMS; d <= 200 || d > 400 {
		t.Fatalf("second failure: dial in %d ms, want (200, 400]", d)
	}
	// Removed while waiting: nothing is registered later.
	f.RemoveWorker(pod(url, "u2"))
	time.Sleep(500 * time.Millisecond)
	if eng.Has(url) || len(f.Details().Workers) != 0 {
		t.Fatal("a worker removed while waiting was registered")
	}
}

// Discovery leaves a static worker's URL alone.
func TestStaticURLIsNotOwned(t *testing.T) {
	url := worker(t, nil)
	eng, f, _ := setup(t, url)
	f.AddWorker(pod(url, "u1"))
	if st := state(f, url); st != StateStatic {
		t.Fatalf("state %q", st)
	}
	f.RemoveWorker(pod(url, "u1"))
	if !eng.Has(url) {
		t.Fatal("removing the pod removed the static worker")
	}
}

// A changed served name re-registers the worker under it.
func TestUpdateModel(t *testing.T) {
	eng, f, _ := setup(t)
	url := worker(t, nil)
	p := pod(url, "u1")
	f.AddWorker(p)
	waitFor(t, "worker healthy", func() bool { return state(f, url) == StateHealthy })
	p.Model = "renamed"
	f.UpdateWorker(p)
	waitFor(t, "renamed worker healthy", func() bool { _, err := eng.Pick("renamed", nil, nil); return err == nil })
	if _, err := eng.Pick(demomodel.Name, nil, nil); !errors.Is(err, engine.ErrNoWorker) {
		t.Fatalf("old name: %v", err)
	}
	p.PodName = "other-name" // recorded, not re-registered
	w := eng.Workers()[0]
	f.UpdateWorker(p)
	if eng.Workers()[0] != w || f.Details().Workers[0].PodName != "other-name" {
		t.Fatal("a pod name change re-registered the worker")
	}
}
