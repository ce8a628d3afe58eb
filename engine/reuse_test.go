package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/refworker"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tokenizer/tokenizertest"
)

// keepShm makes a reference worker keep the segments it reads.
func keepShm(t *testing.T, dir string) func(*refworker.Options) {
	return func(o *refworker.Options) {
		r, err := shm.NewReader(shm.ReaderOptions{Dir: dir, KeepFiles: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		o.Reader = r
	}
}

// A worker that keeps segments gets refilled ones: one segment serves a
// stream of requests, including a rejected one.
func TestGenerateReusesSegments(t *testing.T) {
	tok := tokenizertest.Qwen3(t)
	dir := t.TempDir()
	reg := prometheus.NewRegistry()
	pool := newPool(t, dir, reg)
	wk := startWorker(t, "unix", dir, keepShm(t, dir))
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: wk.url, ShmMinBytes: -1}}, Pool: pool})
	w, err := e.Pick(model, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !w.Info().KeepAfterRead || !w.Route().Reuse {
		t.Fatalf("capability not seen: info %v, route %+v", w.Info().KeepAfterRead, w.Route())
	}
	names := map[string]bool{}
	for i := range 4 {
		rid := fmt.Sprint("k", i)
		batch := pool.NewBatch(context.Background(), rid)
		req, buf := imageRequest(t, rid, w, batch, 4, 6, true)
		req.Sampling = protocol.Sampling{}
		if buf.Path() != shm.PathShm {
			t.Fatalf("placed %s", buf.Path())
		}
		name := req.Media[0].Input.Payload.Shm.Name
		if names[name] {
			t.Fatalf("name %s sent twice", name)
		}
		names[name] = true
		if i == 2 {
			req.Media[0].Placeholders[0].Length = 3 // rejected
			if _, err := e.Generate(context.Background(), w, req, batch); !errors.Is(err, ErrWorkerRejected) {
				t.Fatalf("want a rejection, got %v", err)
			}
		} else {
			s, err := e.Generate(context.Background(), w, req, batch)
			if err != nil {
				t.Fatal(err)
			}
			streamed, _, err := collect(t, s)
			if err != nil {
				t.Fatal(err)
			}
			if text := tok.Decode(streamed, true); !strings.Contains(text, "image 1: grid 1x4x6, bfloat16 via shm") {
				t.Fatalf("reply %d: %q", i, text)
			}
		}
		// A rejected request's segment is removed, never reused (the
		// worker may still have been reading it); an answered one stays
		// pooled.
		want := 1
		if i == 2 {
			want = 0
		}
		if left := dirEntries(t, dir); len(left) != want {
			t.Fatalf("after request %d: %v in the shm dir, want %d pooled segment(s)", i, left, want)
		}
	}
	// Requests 0 and 2 (after the rejection emptied the pool) create a
	// segment; 1 and 3 reuse one.
	if hit := metricValue(t, reg, "mmgate_shm_reuse_total", map[string]string{"outcome": "hit"}); hit != 2 {
		t.Errorf("hits %v", hit)
	}
	if miss := metricValue(t, reg, "mmgate_shm_reuse_total", map[string]string{"outcome": "miss"}); miss != 2 {
		t.Errorf("misses %v", miss)
	}
	if st := pool.Reuse(); st.Segments != 1 {
		t.Errorf("free list %+v", st)
	}
}

// Workers that do not advertise the capability, or routes that do not use
// shared memory, never reuse.
func TestNoReuseWithoutCapability(t *testing.T) {
	dir := t.TempDir()
	pool := newPool(t, dir, nil)
	plain := startWorker(t, "tcp", dir, nil)
	keeping := startWorker(t, "tcp", dir, keepShm(t, dir))
	e := newEngine(t, Options{Workers: []WorkerConfig{
		{URL: plain.url, ShmMinBytes: -1},
		{URL: keeping.url, Transport: shm.ModeInline},
	}, Pool: pool})
	for _, w := range e.Workers() {
		waitFor(t, "worker up", w.Healthy)
		if w.Route().Reuse {
			t.Errorf("%s: reuse on (keeps %v, mode %s)", w.URL(), w.Info().KeepAfterRead, w.Route().Mode)
		}
		if w.Info().KeepAfterRead != (w.URL() == keeping.url) {
			t.Errorf("%s: KeepAfterRead %v", w.URL(), w.Info().KeepAfterRead)
		}
	}
}
