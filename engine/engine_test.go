package engine

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/engine/builtin"
	"github.com/mmgate/mmgate/engine/protocol"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/refworker"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

func TestConnectAndInfo(t *testing.T) {
	dir := t.TempDir()
	reg := prometheus.NewRegistry()
	pool := newPool(t, dir, nil)
	tcp := startWorker(t, "tcp", dir, nil)
	unix := startWorker(t, "unix", dir, func(o *refworker.Options) { o.ServedModelName = "z-other"; o.EncoderDType = "float32" })
	e := newEngine(t, Options{
		Workers: []WorkerConfig{
			{URL: tcp.url},
			{URL: unix.url, Transport: shm.ModeInline, ShmMinBytes: -1, EncoderDType: "float16", MaxMessageSize: 16 << 20},
		},
		Pool: pool, Registerer: reg,
	})
	if !e.Ready() {
		t.Fatal("not ready after Start")
	}
	ms := e.Models()
	if len(ms) != 2 || ms[0].Name != model || ms[1].Name != "z-other" || ms[0].Healthy != 1 || ms[0].Workers != 1 {
		t.Fatalf("models: %+v", ms)
	}
	mi := ms[0].Info
	if mi.ModelType != "qwen3_vl" || mi.ContextLength != 262144 || len(mi.EOS) == 0 || mi.EOS[0] != 151645 {
		t.Errorf("model info: %v", mi)
	}

	w, err := e.Pick(model, []vision.Modality{vision.Image, vision.Video}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.URL() != tcp.url {
		t.Fatalf("picked %s", w.URL())
	}
	info := w.Info()
	if !info.NamespaceMatch || info.NamespaceID != pool.NamespaceID() || info.Runtime != "tokenspeed" || info.Software != "mmgate-reference" {
		t.Errorf("info: ns %q match %v runtime %q software %q", info.NamespaceID, info.NamespaceMatch, info.Runtime, info.Software)
	}
	want := shm.Route{Mode: shm.ModeAuto, NamespaceMatch: true, Limits: shm.Limits{MinBytes: 65536, MaxInline: 256<<20 - 16<<20}, Runtime: "tokenspeed"}
	if got := w.Route(); got != want {
		t.Errorf("route %+v, want %+v", got, want)
	}
	if w.EncoderDType() != tensor.BFloat16 { // the worker's multimodal_encoder_dtype
		t.Errorf("encoder dtype %v", w.EncoderDType())
	}

	u, err := e.Pick("z-other", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want = shm.Route{Mode: shm.ModeInline, NamespaceMatch: true, Limits: shm.Limits{MinBytes: -1, MaxInline: 15 << 20}, Runtime: "tokenspeed"}
	if got := u.Route(); got != want {
		t.Errorf("unix route %+v, want %+v", got, want)
	}
	if u.EncoderDType() != tensor.Float16 { // configured override
		t.Errorf("override dtype %v", u.EncoderDType())
	}
	for _, url := range []string{tcp.url, unix.url} {
		if v := metricValue(t, reg, "mmgate_worker_healthy", map[string]string{"worker": url}); v != 1 {
			t.Errorf("healthy gauge of %s = %v", url, v)
		}
	}
}

func TestNoPoolMeansInline(t *testing.T) {
	dir := t.TempDir()
	wk := startWorker(t, "tcp", dir, func(o *refworker.Options) { o.EncoderDType = "float32" })
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: wk.url, Transport: shm.ModeShm}}})
	w, err := e.Pick(model, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := w.Route(); r.Mode != shm.ModeInline || r.NamespaceMatch {
		t.Errorf("route without a pool: %+v", r)
	}
	if w.EncoderDType() != tensor.Float32 {
		t.Errorf("dtype %v", w.EncoderDType())
	}
}

func TestPickErrors(t *testing.T) {
	dir := t.TempDir()
	wk := startWorker(t, "unix", dir, nil)
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: wk.url}}})
	cases := []struct {
		model string
		need  []vision.Modality
		want  error
	}{
		{"nope", nil, ErrModelNotFound},
		{model, []vision.Modality{vision.Audio}, ErrModality},
		{model, []vision.Modality{vision.Image, vision.Audio}, ErrModality},
		{model, []vision.Modality{vision.Video}, nil},
	}
	for _, c := range cases {
		_, err := e.Pick(c.model, c.need, nil)
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("Pick(%q, %v) = %v, want %v", c.model, c.need, err, c.want)
		}
	}
	wk.stop()
	waitFor(t, "worker down", func() bool { return !e.Ready() })
	if _, err := e.Pick(model, nil, nil); !errors.Is(err, ErrNoWorker) {
		t.Errorf("down worker: %v", err)
	}
	// A worker known to serve another model still gives 404 for unknown
	// names, and the modality check holds while it is down.
	if _, err := e.Pick("nope", nil, nil); !errors.Is(err, ErrModelNotFound) {
		t.Errorf("unknown model while down: %v", err)
	}
	if _, err := e.Pick(model, []vision.Modality{vision.Audio}, nil); !errors.Is(err, ErrModality) {
		t.Errorf("modality while down: %v", err)
	}
}

func TestNeverReachedWorker(t *testing.T) {
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: "unix:///nonexistent/engine-test.sock"}}, HealthTimeout: 200 * time.Millisecond})
	if e.Ready() || len(e.Models()) != 0 {
		t.Fatal("ready without a worker")
	}
	if _, err := e.Pick(model, nil, nil); !errors.Is(err, ErrNoWorker) {
		t.Errorf("pick: %v", err)
	}
}

func TestRoundRobin(t *testing.T) {
	dir := t.TempDir()
	a := startWorker(t, "tcp", dir, nil)
	b := startWorker(t, "unix", dir, nil)
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: a.url}, {URL: b.url}}, Policy: PolicyRoundRobin})
	var got []string
	for range 4 {
		w, err := e.Pick(model, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, w.URL())
	}
	if got[0] == got[1] || got[0] != got[2] || got[1] != got[3] {
		t.Errorf("round robin order: %v", got)
	}
}

func TestLeastLoaded(t *testing.T) {
	dir := t.TempDir()
	slow := func(o *refworker.Options) { o.TokenDelay = 20 * time.Millisecond }
	a := startWorker(t, "tcp", dir, slow)
	b := startWorker(t, "tcp", dir, slow)
	reg := prometheus.NewRegistry()
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: a.url}, {URL: b.url}}, HealthInterval: 20 * time.Millisecond, Registerer: reg})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Idle workers alternate.
	w1, _ := e.Pick(model, nil, nil)
	w2, _ := e.Pick(model, nil, nil)
	if w1 == w2 {
		t.Errorf("idle workers did not alternate: %s twice", w1.URL())
	}

	// A stream open on one worker sends the next requests to the other.
	busy, err := e.Pick(model, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := &protocol.Request{ID: "busy", Stream: true, InputIDs: []uint32{1, 2, 3}}
	s, err := e.Generate(ctx, busy, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if busy.InFlight() != 1 || metricValue(t, reg, "mmgate_worker_in_flight", map[string]string{"worker": busy.URL()}) != 1 {
		t.Errorf("in flight %d", busy.InFlight())
	}
	for range 3 {
		if w, _ := e.Pick(model, nil, nil); w == busy {
			t.Errorf("picked the busy worker")
		}
	}
	s.Close()
	if busy.InFlight() != 0 || metricValue(t, reg, "mmgate_worker_in_flight", map[string]string{"worker": busy.URL()}) != 0 {
		t.Errorf("in flight after close %d", busy.InFlight())
	}

	// Load from another client, seen through GetLoads.
	other := e.Workers()[1]
	sub, err := schedulerpb.NewTokenSpeedSchedulerClient(other.conn).Generate(ctx, &schedulerpb.GenerateRequest{RequestId: "elsewhere", Stream: true,
		Tokenized: &schedulerpb.TokenizedInput{InputIds: []uint32{1, 2, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Recv(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "GetLoads to see the other client", func() bool { return other.load() == 1 })
	for range 3 {
		if w, _ := e.Pick(model, nil, nil); w == other {
			t.Errorf("picked the worker loaded by another client")
		}
	}
}

func TestWorkerDownAndBack(t *testing.T) {
	dir := t.TempDir()
	reg := prometheus.NewRegistry()
	a := startWorker(t, "unix", dir, nil)
	b := startWorker(t, "tcp", dir, nil)
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: a.url}, {URL: b.url}}, Registerer: reg, Policy: PolicyRoundRobin})
	wa := e.Workers()[0]
	a.stop()
	waitFor(t, "worker a to leave the rotation", func() bool { return !wa.Healthy() })
	if v := metricValue(t, reg, "mmgate_worker_healthy", map[string]string{"worker": a.url}); v != 0 {
		t.Errorf("healthy gauge %v", v)
	}
	for range 4 {
		w, err := e.Pick(model, nil, nil)
		if err != nil || w == wa {
			t.Fatalf("picked %v, %v", w, err)
		}
	}
	if m := e.Models(); len(m) != 1 || m[0].Healthy != 1 || m[0].Workers != 2 {
		t.Errorf("models while a is down: %+v", m)
	}
	before := wa.Info().Fetched
	a.start()
	waitFor(t, "worker a to come back", wa.Healthy)
	if !wa.Info().Fetched.After(before) {
		t.Errorf("info not re-read on recovery")
	}
	seen := map[*Worker]bool{}
	for range 4 {
		w, _ := e.Pick(model, nil, nil)
		seen[w] = true
	}
	if !seen[wa] {
		t.Errorf("recovered worker not picked")
	}
}

func TestNewOptions(t *testing.T) {
	cases := []struct {
		name string
		o    Options
		want error
	}{
		{"no workers", Options{}, nil},
		{"cache threshold", Options{Policy: PolicyCacheAware, CacheAware: CacheAwareOptions{Threshold: 1.5}}, ErrBadOptions},
		{"tree size", Options{Policy: PolicyCacheAware, CacheAware: CacheAwareOptions{MaxTreeTokens: -1}}, ErrBadOptions},
		{"policy", Options{Workers: []WorkerConfig{{URL: "grpc://h:1"}}, Policy: "random"}, ErrBadOptions},
		{"twice", Options{Workers: []WorkerConfig{{URL: "grpc://h:1"}, {URL: "grpc://h:1"}}}, ErrBadOptions},
		{"dtype", Options{Workers: []WorkerConfig{{URL: "grpc://h:1", EncoderDType: "int64"}}}, ErrBadOptions},
		{"msg size", Options{Workers: []WorkerConfig{{URL: "grpc://h:1", MaxMessageSize: 1000}}}, ErrBadOptions},
		{"mode", Options{Workers: []WorkerConfig{{URL: "grpc://h:1", Transport: shm.Mode(9)}}}, ErrBadOptions},
		{"url", Options{Workers: []WorkerConfig{{URL: "http://h:1"}}}, ErrBadURL},
		{"https", Options{Workers: []WorkerConfig{{URL: "https://h:1"}}}, ErrUnsupported},
		{"unknown runtime", Options{Workers: []WorkerConfig{{URL: "grpc://h:1", Runtime: "trtllm"}}}, ErrBadOptions},
		{"ok", Options{Workers: []WorkerConfig{{URL: "grpc://h:1"}, {URL: "unix:///x.sock"}}}, nil},
	}
	if _, err := New(Options{Workers: []WorkerConfig{{URL: "grpc://h:1"}}}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("no protocols: %v", err)
	}
	for _, c := range cases {
		c.o.Protocols = builtin.Protocols()
		e, err := New(c.o)
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if e == nil {
			continue
		}
		if len(e.Workers()) > 0 {
			if _, err := e.Generate(context.Background(), e.Workers()[0], &protocol.Request{ID: "x"}, nil); !errors.Is(err, ErrClosed) {
				t.Errorf("generate before start: %v", err)
			}
		}
		e.Close()
	}
}

func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	e, err := New(Options{Protocols: builtin.Protocols(), Workers: []WorkerConfig{{URL: "unix:///nonexistent/a.sock"}, {URL: "grpc://127.0.0.1:1"}},
		HealthInterval: 10 * time.Millisecond, HealthTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	e.Close()
	e.Close()
	waitFor(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
	if err := e.Start(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("start after close: %v", err)
	}
}
