package kube

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/discovery"
)

// testSink is the gateway's side in tests: it keeps the worker set,
// records every call and fails the test on a call that breaks the
// contract (a second add of a live URL, a remove or update of an unknown
// one).
type testSink struct {
	t   testing.TB
	mu  sync.Mutex
	set map[string]discovery.Worker
	log []string
}

func newTestSink(t testing.TB) *testSink { return &testSink{t: t, set: map[string]discovery.Worker{}} }

func (s *testSink) AddWorker(w discovery.Worker) { s.apply("add", w, false) }

func (s *testSink) UpdateWorker(w discovery.Worker) { s.apply("update", w, true) }

func (s *testSink) RemoveWorker(w discovery.Worker) { s.apply("remove", w, true) }

// apply records one call; held says whether w's URL must already be held
// by w's pod UID (update, remove) or not held at all (add).
func (s *testSink) apply(op string, w discovery.Worker, held bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.set[w.URL]
	if held != (ok && old.PodUID == w.PodUID) || !held && ok {
		s.t.Errorf("%s of %s (uid %s) while held by %q", op, w.URL, w.PodUID, old.PodUID)
	}
	if op == "remove" {
		delete(s.set, w.URL)
	} else {
		s.set[w.URL] = w
	}
	s.log = append(s.log, op+" "+w.PodName+" "+w.URL)
}

// pods returns the held workers as sorted "name url" strings.
func (s *testSink) pods() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, w := range s.set {
		out = append(out, w.PodName+" "+w.URL)
	}
	slices.Sort(out)
	return out
}

func (s *testSink) worker(url string) discovery.Worker {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set[url]
}

func (s *testSink) calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// waitPods waits until the held set is exactly want ("name url" each).
func (s *testSink) waitPods(t testing.TB, step string, want ...string) {
	t.Helper()
	slices.Sort(want)
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := s.pods()
		if slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: workers %q, want %q\ncalls: %q", step, got, want, s.calls())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runDiscovery starts d.Run until the test ends and checks it returns nil.
func runDiscovery(t testing.TB, d *Discovery) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Run did not return after cancel")
		}
	})
}

// waitFor polls cond for up to 30 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func stateCounts(st discovery.Status) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(st.Pods)) {
		fmt.Fprintf(&b, "%s=%d ", k, st.Pods[k])
	}
	return strings.TrimSpace(b.String())
}
