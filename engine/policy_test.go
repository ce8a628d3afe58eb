package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/vision"
)

var img = []vision.Modality{vision.Image}

// twoFakes starts an engine with the given policy over two fake "beta"
// workers of model "m" (a:1 and b:1), both healthy.
func twoFakes(t *testing.T, policy string) (*Engine, *fakeProto, *Worker, *Worker) {
	t.Helper()
	_, beta := fakeSetup(map[string]*fakeWorkerState{
		"a:1": {speaks: "beta", model: "m", mods: img, tokens: []uint32{1}},
		"b:1": {speaks: "beta", model: "m", mods: img, tokens: []uint32{2}},
	})
	e := newEngine(t, Options{Protocols: []protocol.Protocol{beta}, Policy: policy,
		Workers: []WorkerConfig{{URL: "grpc://a:1"}, {URL: "grpc://b:1"}}})
	wa, wb := e.Workers()[0], e.Workers()[1]
	waitFor(t, "workers up", func() bool { return wa.Healthy() && wb.Healthy() })
	return e, beta, wa, wb
}

// conversation is a multi-turn image chat as token ids: a system prefix,
// an image of 256 pad tokens keyed by the conversation's own hash, and
// 24 more tokens per turn.
type conversation struct {
	hash [32]byte
	ids  []uint32
}

func newConversation(n int) *conversation {
	c := &conversation{}
	c.hash[0], c.hash[1] = byte(n), 0xEE
	for i := range 8 {
		c.ids = append(c.ids, uint32(100+i))
	}
	for range 256 {
		c.ids = append(c.ids, 151655)
	}
	return c
}

func (c *conversation) turn(k int) *Routing {
	for i := range 24 {
		c.ids = append(c.ids, uint32(1000+k*24+i))
	}
	return &Routing{IDs: append([]uint32(nil), c.ids...), Media: []protocol.MediaItem{{
		Hash: c.hash[:], Placeholders: []protocol.Range{{Offset: 8, Length: 256}}}}}
}

func TestCacheAwareFollowUpsStay(t *testing.T) {
	e, _, wa, wb := twoFakes(t, PolicyCacheAware)
	first := map[int]*Worker{}
	used := map[*Worker]int{}
	for n := range 8 {
		c := newConversation(n)
		for k := range 4 {
			w, err := e.Pick("m", img, c.turn(k))
			if err != nil {
				t.Fatal(err)
			}
			if k == 0 {
				first[n] = w
				used[w]++
			} else if w != first[n] {
				t.Fatalf("conversation %d turn %d went to %s, its first turn to %s", n, k, w.URL(), first[n].URL())
			}
		}
	}
	if used[wa] == 0 || used[wb] == 0 {
		t.Fatalf("conversations per worker %v: both should have some", used)
	}
	// A removed worker's prefixes are forgotten: its conversations move.
	sizes := e.route.cache.Sizes("m")
	if sizes[wa.URL()] == 0 || sizes[wb.URL()] == 0 {
		t.Fatalf("tree sizes %v", sizes)
	}
	e.Remove(wa.URL())
	if _, ok := e.route.cache.Sizes("m")[wa.URL()]; ok {
		t.Fatal("the removed worker's prefixes are still recorded")
	}
	for n, w := range first {
		if w != wa {
			continue
		}
		if got, err := e.Pick("m", img, newConversation(n).turn(0)); err != nil || got != wb {
			t.Fatalf("after removal: %v, %v", got, err)
		}
	}
	// Without a prompt the policy chooses as least_loaded does.
	if w, err := e.Pick("m", img, nil); err != nil || w != wb {
		t.Fatalf("no routing input: %v, %v", w, err)
	}
}

func TestConsistentHash(t *testing.T) {
	e, _, wa, wb := twoFakes(t, PolicyConsistentHash)
	byKey := map[string]*Worker{}
	for i := range 32 {
		key := fmt.Sprint("session-", i)
		w, err := e.Pick("m", img, &Routing{Key: key})
		if err != nil {
			t.Fatal(err)
		}
		byKey[key] = w
		for range 3 {
			if again, _ := e.Pick("m", img, &Routing{Key: key}); again != w {
				t.Fatalf("key %s moved from %s to %s", key, w.URL(), again.URL())
			}
		}
	}
	count := map[*Worker]int{}
	for _, w := range byKey {
		count[w]++
	}
	if count[wa] == 0 || count[wb] == 0 {
		t.Fatalf("32 keys over two workers: %v", count)
	}
	// Keys of a removed worker move; the others stay.
	e.Remove(wa.URL())
	for key, w := range byKey {
		if got, _ := e.Pick("m", img, &Routing{Key: key}); got != wb {
			t.Fatalf("key %s (was on %s) went to %v", key, w.URL(), got)
		}
	}
}

func TestPowerOfTwo(t *testing.T) {
	e, _, wa, wb := twoFakes(t, PolicyPowerOfTwo)
	// Three streams held open on a: b is less loaded, and with two workers
	// both are always drawn.
	for i := range 3 {
		s, err := e.Generate(context.Background(), wa, &protocol.Request{ID: fmt.Sprint("busy-", i), Stream: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
	}
	for range 20 {
		if w, err := e.Pick("m", img, nil); err != nil || w != wb {
			t.Fatalf("picked %v, %v; want the idle worker", w, err)
		}
	}
}

// Candidates are exactly the workers Pick chooses from: healthy, of the
// model, taking the modalities, whatever their protocol.
func TestCandidates(t *testing.T) {
	alpha, beta := fakeSetup(map[string]*fakeWorkerState{
		"a:1": {speaks: "alpha", model: "m", mods: img, tokens: []uint32{1}},
		"b:1": {speaks: "beta", model: "m", mods: img, tokens: []uint32{2}},
		"c:1": {speaks: "beta", model: "m", tokens: []uint32{3}},
		"d:1": {speaks: "beta", model: "m", mods: img, tokens: []uint32{4}, down: true},
		"e:1": {speaks: "beta", model: "other", mods: img, tokens: []uint32{5}},
	})
	e := newEngine(t, Options{Protocols: []protocol.Protocol{alpha, beta}, Policy: PolicyRoundRobin,
		Workers: []WorkerConfig{{URL: "grpc://a:1"}, {URL: "grpc://b:1"}, {URL: "grpc://c:1"}, {URL: "grpc://d:1"}, {URL: "grpc://e:1"}}})
	ws := e.Workers()
	waitFor(t, "workers up", func() bool { return ws[0].Healthy() && ws[1].Healthy() && ws[2].Healthy() && ws[4].Healthy() })
	for _, tc := range []struct {
		need []vision.Modality
		want []*Worker
	}{{img, ws[:2]}, {nil, ws[:3]}} {
		got, err := e.Candidates("m", tc.need)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Fatalf("candidates for %v: %v, %v; want %v", tc.need, got, err, tc.want)
		}
		seen := map[*Worker]bool{}
		for range 2 * len(tc.want) {
			w, err := e.Pick("m", tc.need, nil)
			if err != nil {
				t.Fatal(err)
			}
			seen[w] = true
		}
		if len(seen) != len(tc.want) {
			t.Fatalf("round robin over %d candidates: %d seen", len(tc.want), len(seen))
		}
		for w := range seen {
			if !slices.Contains(tc.want, w) {
				t.Fatalf("picked %s, not a candidate", w.URL())
			}
		}
	}
	if _, err := e.Candidates("other", []vision.Modality{vision.Video}); !errors.Is(err, ErrModality) {
		t.Fatalf("a modality no worker takes: %v", err)
	}
}

// Served model names are remembered: no worker at start, or none left,
// is 503 (ErrNoWorker), an unknown name 404.
func TestModelMemory(t *testing.T) {
	_, beta := fakeSetup(map[string]*fakeWorkerState{
		"a:1": {speaks: "beta", model: "m", mods: img, tokens: []uint32{1}},
		"b:1": {speaks: "beta", model: "other", mods: img, tokens: []uint32{2}},
	})
	e := newEngine(t, Options{Protocols: []protocol.Protocol{beta}, Models: []string{"m"}})
	if _, err := e.Pick("m", img, nil); !errors.Is(err, ErrNoWorker) {
		t.Fatalf("configured model, no worker: %v", err)
	}
	if _, err := e.Pick("x", img, nil); !errors.Is(err, ErrModelNotFound) {
		t.Fatalf("unknown model: %v", err)
	}
	if !e.Serves("m") || e.Serves("x") || len(e.Models()) != 0 {
		t.Fatalf("serves m %v, x %v; models %v", e.Serves("m"), e.Serves("x"), e.Models())
	}
	wa, err := e.Add(WorkerConfig{URL: "grpc://a:1"})
	if err != nil {
		t.Fatal(err)
	}
	// b serves "other" but is reached as "alias" (a pod's mmgate.io/model).
	wb, err := e.Add(WorkerConfig{URL: "grpc://b:1", Model: "alias"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "workers up", func() bool { return wa.Healthy() && wb.Healthy() })
	if w, err := e.Pick("alias", img, nil); err != nil || w != wb {
		t.Fatalf("alias: %v, %v", w, err)
	}
	if _, err := e.Pick("other", img, nil); !errors.Is(err, ErrModelNotFound) {
		t.Fatalf("the worker's own name under an alias: %v", err)
	}
	e.Remove(wb.URL())
	if _, err := e.Pick("alias", img, nil); !errors.Is(err, ErrNoWorker) {
		t.Fatalf("alias after its last worker left: %v", err)
	}
	if ms := e.Models(); len(ms) != 2 || ms[0].Name != "alias" || ms[0].Workers != 0 || ms[1].Name != "m" || ms[1].Healthy != 1 {
		t.Fatalf("models %+v", ms)
	}
}

// A worker removed after it was picked never gets the request: it goes to
// another worker, and nothing fails.
func TestRemovedAfterPick(t *testing.T) {
	e, beta, wa, wb := twoFakes(t, PolicyRoundRobin)
	e.Remove(wa.URL())
	s, err := e.Generate(context.Background(), wa, &protocol.Request{ID: "late", Stream: true}, nil)
	if err != nil {
		t.Fatalf("request to a removed worker: %v", err)
	}
	if _, _, err := collect(t, s); err != nil || s.Worker() != wb {
		t.Fatalf("served by %s: %v", s.Worker().URL(), err)
	}
	if n := len(beta.host.worker("dns:///a:1").sent); n != 0 {
		t.Fatalf("the removed worker was sent %d requests", n)
	}
}

// A URL removed while a stream is open and added again at once (a pod
// replaced on the same address) keeps its metric series when the old
// stream ends.
func TestReaddedURLKeepsMetrics(t *testing.T) {
	_, beta := fakeSetup(map[string]*fakeWorkerState{
		"a:1": {speaks: "beta", model: "m", mods: img, tokens: []uint32{1, 2}},
	})
	reg := prometheus.NewRegistry()
	e := newEngine(t, Options{Protocols: []protocol.Protocol{beta}, Registerer: reg, Workers: []WorkerConfig{{URL: "grpc://a:1"}}})
	old := e.Workers()[0]
	waitFor(t, "worker up", old.Healthy)
	s, err := e.Generate(context.Background(), old, &protocol.Request{ID: "open", Stream: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Remove("grpc://a:1")
	next, err := e.Add(WorkerConfig{URL: "grpc://a:1"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "re-added worker up", next.Healthy)
	if _, _, err := collect(t, s); err != nil {
		t.Fatal(err)
	}
	if old.conn.GetState().String() != "SHUTDOWN" || next.conn.GetState().String() == "SHUTDOWN" {
		t.Fatalf("connections: old %v, new %v", old.conn.GetState(), next.conn.GetState())
	}
	if v := metricValue(t, reg, "mmgate_worker_healthy", map[string]string{"worker": "grpc://a:1"}); v != 1 {
		t.Fatalf("mmgate_worker_healthy = %v after the old worker retired", v)
	}
}
