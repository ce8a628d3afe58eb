package engine

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/refworker"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tokenizer/tokenizertest"
)

func TestGenerateEndToEnd(t *testing.T) {
	tok := tokenizertest.Qwen3(t)
	cases := []struct {
		name     string
		network  string
		gh, gw   int
		minBytes int
		stream   bool
		path     string
	}{
		{"inline small tensor", "tcp", 2, 2, 0, true, "inline"},
		{"shm over threshold", "unix", 4, 6, 0, true, "shm"},
		{"shm no threshold, non-stream", "tcp", 2, 2, -1, false, "shm"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			reg := prometheus.NewRegistry()
			pool := newPool(t, dir, nil)
			wk := startWorker(t, c.network, dir, nil)
			e := newEngine(t, Options{Workers: []WorkerConfig{{URL: wk.url, ShmMinBytes: c.minBytes}}, Pool: pool, Registerer: reg})
			w, err := e.Pick(model, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			batch := pool.NewBatch(ctx, "r1")
			req, buf := imageRequest(t, "r1", w, batch, c.gh, c.gw, c.stream)
			if buf.Path().String() != c.path {
				t.Fatalf("tensor placed %s, want %s", buf.Path(), c.path)
			}
			s, err := e.Generate(ctx, w, req, batch)
			if err != nil {
				t.Fatal(err)
			}
			if s.Worker() != w || w.InFlight() != 1 {
				t.Errorf("stream worker %v, in flight %d", s.Worker().URL(), w.InFlight())
			}
			streamed, done, err := collect(t, s)
			if err != nil {
				t.Fatal(err)
			}
			if done == nil || done.Finish != "length" || len(streamed) != 8 || done.CompletionTokens != 8 {
				t.Fatalf("complete: %+v after %d tokens", done, len(streamed))
			}
			// The reply describes the request; its first tokens name the
			// transport path.
			req2, _ := imageRequest(t, "r2", w, nil, c.gh, c.gw, true)
			req2.Sampling = protocol.Sampling{}
			s2, err := e.Generate(ctx, w, req2, nil)
			if err != nil {
				t.Fatal(err)
			}
			streamed2, _, err := collect(t, s2)
			if err != nil {
				t.Fatal(err)
			}
			if text := tok.Decode(streamed2, true); !strings.Contains(text, "image 1: grid 1x"+itoa(c.gh)+"x"+itoa(c.gw)+", bfloat16 via inline") {
				t.Errorf("reply: %q", text)
			}
			if w.InFlight() != 0 {
				t.Errorf("in flight after end: %d", w.InFlight())
			}
			if left := dirEntries(t, dir); len(left) != 0 {
				t.Errorf("left in shm dir: %v", left)
			}
			if v := metricValue(t, reg, "mmgate_worker_requests_total", map[string]string{"worker": wk.url, "outcome": "ok"}); v != 2 {
				t.Errorf("ok requests %v", v)
			}
		})
	}
}

func itoa(n int) string { return string(rune('0' + n)) }

// A shm tensor read by the worker is described as such.
func TestGenerateShmDescribed(t *testing.T) {
	tok := tokenizertest.Qwen3(t)
	dir := t.TempDir()
	pool := newPool(t, dir, nil)
	wk := startWorker(t, "tcp", dir, nil)
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: wk.url, ShmMinBytes: -1}}, Pool: pool})
	w, _ := e.Pick(model, nil, nil)
	batch := pool.NewBatch(context.Background(), "d")
	req, _ := imageRequest(t, "d", w, batch, 2, 2, true)
	req.Sampling = protocol.Sampling{}
	s, err := e.Generate(context.Background(), w, req, batch)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := pool.InUse(); n != 1 {
		t.Errorf("committed segment not handed over: %d in use", n)
	}
	streamed, _, err := collect(t, s)
	if err != nil {
		t.Fatal(err)
	}
	if text := tok.Decode(streamed, true); !strings.Contains(text, "image 1: grid 1x2x2, bfloat16 via shm") {
		t.Errorf("reply: %q", text)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left in shm dir: %v", left)
	}
}

func TestGenerateRejected(t *testing.T) {
	dir := t.TempDir()
	reg := prometheus.NewRegistry()
	pool := newPool(t, dir, nil)
	wk := startWorker(t, "unix", dir, nil)
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: wk.url, ShmMinBytes: -1}}, Pool: pool, Registerer: reg})
	w, _ := e.Pick(model, nil, nil)
	batch := pool.NewBatch(context.Background(), "bad")
	req, buf := imageRequest(t, "bad", w, batch, 2, 2, true)
	if buf.Path() != shm.PathShm {
		t.Fatal("tensor not in shm")
	}
	req.Media[0].Placeholders[0].Length = 3 // wrong count
	_, err := e.Generate(context.Background(), w, req, batch)
	var we *WorkerError
	if !errors.Is(err, ErrWorkerRejected) || !errors.As(err, &we) || we.Code != codes.InvalidArgument || !strings.Contains(we.Message, "placeholder") {
		t.Fatalf("err = %v", err)
	}
	if n, b := pool.InUse(); n != 0 || b != 0 {
		t.Errorf("batch not released: %d segments, %d bytes in use", n, b)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left in shm dir: %v", left)
	}
	if w.InFlight() != 0 || !w.Healthy() {
		t.Errorf("in flight %d healthy %v", w.InFlight(), w.Healthy())
	}
	if v := metricValue(t, reg, "mmgate_worker_requests_total", map[string]string{"worker": wk.url, "outcome": "rejected"}); v != 1 {
		t.Errorf("rejected count %v", v)
	}
	// Empty request ids never leave the gateway.
	batch = pool.NewBatch(context.Background(), "")
	req, _ = imageRequest(t, "", w, batch, 2, 2, true)
	if _, err := e.Generate(context.Background(), w, req, batch); !errors.Is(err, ErrBadRequest) {
		t.Errorf("empty id: %v", err)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left in shm dir: %v", left)
	}
}

func TestGenerateTooLarge(t *testing.T) {
	dir := t.TempDir()
	wk := startWorker(t, "tcp", dir, nil)
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: wk.url, MaxMessageSize: 1 << 20}}})
	w, _ := e.Pick(model, nil, nil)
	req, _ := imageRequest(t, "big", w, nil, 24, 24, true) // 1.7 MB inline
	if _, err := e.Generate(context.Background(), w, req, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v", err)
	}
	if w.InFlight() != 0 {
		t.Errorf("in flight %d", w.InFlight())
	}
}

func TestCancelMidStream(t *testing.T) {
	dir := t.TempDir()
	reg := prometheus.NewRegistry()
	pool := newPool(t, dir, nil)
	wk := startWorker(t, "tcp", dir, func(o *refworker.Options) { o.TokenDelay = 20 * time.Millisecond })
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: wk.url, ShmMinBytes: -1}}, Pool: pool, Registerer: reg})
	w, _ := e.Pick(model, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	batch := pool.NewBatch(ctx, "c1")
	req, _ := imageRequest(t, "c1", w, batch, 2, 2, true)
	req.Sampling = protocol.Sampling{}
	s, err := e.Generate(ctx, w, req, batch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recv(); err != nil {
		t.Fatal(err)
	}
	if wk.srv.InFlight() != 1 {
		t.Fatalf("worker in flight %d", wk.srv.InFlight())
	}
	cancel()
	var rerr error
	for rerr == nil {
		_, rerr = s.Recv()
	}
	if !errors.Is(rerr, context.Canceled) {
		t.Errorf("recv after cancel: %v", rerr)
	}
	s.Close()
	waitFor(t, "Abort at the worker", func() bool { return slices.Contains(wk.abortsSeen(), "c1") })
	waitFor(t, "worker in flight 0", func() bool { return wk.srv.InFlight() == 0 })
	if w.InFlight() != 0 {
		t.Errorf("gateway in flight %d", w.InFlight())
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left in shm dir: %v", left)
	}
	if v := metricValue(t, reg, "mmgate_worker_requests_total", map[string]string{"worker": wk.url, "outcome": "cancelled"}); v != 1 {
		t.Errorf("cancelled count %v", v)
	}

	// Cancelled before the worker answers: aborted and released.
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	held, _ := pool.InUse()
	batch = pool.NewBatch(context.Background(), "c2")
	req, _ = imageRequest(t, "c2", w, batch, 2, 2, true)
	<-ctx.Done()
	_, err = e.Generate(ctx, w, req, batch)
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("expired context: %v", err)
	}
	if n, _ := pool.InUse(); n != held {
		t.Errorf("segments held: %d, want %d", n, held)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left in shm dir: %v", left)
	}

	// A caller closing a stream early aborts it too.
	s, err = e.Generate(context.Background(), w, &protocol.Request{ID: "c3", Stream: true,
		InputIDs: []uint32{1, 2, 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	waitFor(t, "Abort of c3", func() bool { return slices.Contains(wk.abortsSeen(), "c3") })
	waitFor(t, "worker in flight 0", func() bool { return wk.srv.InFlight() == 0 })
}

func TestRetryBeforeFirstToken(t *testing.T) {
	dir := t.TempDir()
	reg := prometheus.NewRegistry()
	pool := newPool(t, dir, nil)
	dead := startWorker(t, "unix", dir, nil)
	live := startWorker(t, "tcp", dir, nil)
	inl := startWorker(t, "tcp", dir, nil)
	// A long health interval: the engine learns of the death from Generate.
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: dead.url, ShmMinBytes: -1}, {URL: live.url, ShmMinBytes: -1}, {URL: inl.url, Transport: shm.ModeInline}},
		Pool: pool, Registerer: reg, HealthInterval: time.Hour})
	wd, wl, wi := e.Workers()[0], e.Workers()[1], e.Workers()[2]
	if !wd.Healthy() || !wl.Healthy() || !wi.Healthy() {
		t.Fatal("workers not healthy at start")
	}
	dead.stop()
	batch := pool.NewBatch(context.Background(), "rt")
	req, buf := imageRequest(t, "rt", wd, batch, 2, 2, true)
	if buf.Path() != shm.PathShm {
		t.Fatal("not shm")
	}
	s, err := e.Generate(context.Background(), wd, req, batch)
	if err != nil {
		t.Fatal(err)
	}
	if s.Worker() != wl {
		t.Errorf("retried on %s, want %s (the inline-only worker cannot read shm)", s.Worker().URL(), wl.URL())
	}
	if _, _, err := collect(t, s); err != nil {
		t.Fatal(err)
	}
	if wd.Healthy() {
		t.Error("dead worker still in the rotation")
	}
	if v := metricValue(t, reg, "mmgate_worker_retries_total", nil); v != 1 {
		t.Errorf("retries %v", v)
	}
	if v := metricValue(t, reg, "mmgate_worker_requests_total", map[string]string{"worker": dead.url, "outcome": "unavailable"}); v != 1 {
		t.Errorf("unavailable count %v", v)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left in shm dir: %v", left)
	}

	// Only incompatible workers left: the error comes back and the
	// segments are released.
	live.stop()
	held, _ := pool.InUse()
	batch = pool.NewBatch(context.Background(), "rt2")
	req, _ = imageRequest(t, "rt2", wl, batch, 2, 2, true)
	_, err = e.Generate(context.Background(), wl, req, batch)
	var we *WorkerError
	if !errors.Is(err, ErrWorker) || !errors.As(err, &we) || we.Code != codes.Unavailable {
		t.Errorf("err = %v", err)
	}
	if n, _ := pool.InUse(); n != held {
		t.Errorf("segments held: %d, want %d", n, held)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left in shm dir: %v", left)
	}
	if wi.InFlight() != 0 || wl.InFlight() != 0 || wd.InFlight() != 0 {
		t.Error("in-flight counts not back to 0")
	}
}

// Reading up to the last complete response (one per choice) finishes the
// stream: Close then aborts nothing.
func TestCloseAfterComplete(t *testing.T) {
	reg := prometheus.NewRegistry()
	wk := startWorker(t, "tcp", t.TempDir(), nil)
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: wk.url}}, Registerer: reg})
	w, _ := e.Pick(model, nil, nil)
	limit := uint32(3)
	for _, n := range []uint32{0, 1, 3} {
		rid := "n" + itoa(int(n))
		s, err := e.Generate(context.Background(), w, &protocol.Request{ID: rid, Stream: true,
			InputIDs: []uint32{1, 2, 3},
			Sampling: protocol.Sampling{N: n, MaxTokens: &limit}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		completes := 0
		for completes < max(1, int(n)) {
			r, err := s.Recv()
			if err != nil {
				t.Fatalf("n=%d: %v after %d completes", n, err, completes)
			}
			if r.Done {
				completes++
			}
		}
		if w.InFlight() != 0 {
			t.Errorf("n=%d: in flight %d after the last complete", n, w.InFlight())
		}
		s.Close()
		if _, err := s.Recv(); err != io.EOF {
			t.Errorf("n=%d: recv after end: %v", n, err)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if a := wk.abortsSeen(); len(a) != 0 {
		t.Errorf("aborts sent for finished streams: %v", a)
	}
	if v := metricValue(t, reg, "mmgate_worker_requests_total", map[string]string{"worker": wk.url, "outcome": "ok"}); v != 3 {
		t.Errorf("ok count %v", v)
	}
}
