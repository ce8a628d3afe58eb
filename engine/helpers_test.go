package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/mmgate/mmgate/engine/builtin"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/internal/demomodel"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/refworker"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/tokenizer/tokenizertest"
	"github.com/mmgate/mmgate/vision"
)

const model = demomodel.Name // the served name of the demo model

// testWorker is a reference worker served over real gRPC on loopback TCP or
// a unix socket; it can be stopped and started again at the same address.
type testWorker struct {
	t       testing.TB
	srv     *refworker.Server
	network string
	addr    string
	url     string

	mu     sync.Mutex
	g      *grpc.Server
	aborts []string // request ids of Abort calls received
}

var (
	modelDirOnce sync.Once
	modelDir     string
	modelDirErr  error
)

// demoModelDir materializes the demo model once per test binary.
func demoModelDir(t testing.TB) string {
	t.Helper()
	modelDirOnce.Do(func() {
		d, err := os.MkdirTemp("", "engine-test-model-")
		if err != nil {
			modelDirErr = err
			return
		}
		modelDir, modelDirErr = demomodel.Materialize(d)
	})
	if modelDirErr != nil {
		t.Fatal(modelDirErr)
	}
	return modelDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if modelDir != "" {
		os.RemoveAll(filepath.Dir(modelDir))
	}
	os.Exit(code)
}

// startWorker serves a reference worker reading shared memory from shmDir,
// on "tcp" (127.0.0.1) or "unix".
func startWorker(t testing.TB, network, shmDir string, mod func(*refworker.Options)) *testWorker {
	t.Helper()
	reader, err := shm.NewReader(shm.ReaderOptions{Dir: shmDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reader.Close() })
	o := refworker.Options{ModelDir: demoModelDir(t), Tokenizer: tokenizertest.Qwen3(t), Reader: reader}
	if mod != nil {
		mod(&o)
	}
	srv, err := refworker.New(o)
	if err != nil {
		t.Fatal(err)
	}
	w := &testWorker{t: t, srv: srv, network: network}
	switch network {
	case "tcp":
		w.addr = "127.0.0.1:0"
	case "unix":
		d, err := os.MkdirTemp("", "eng")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		w.addr = filepath.Join(d, "w.sock")
		w.url = "unix://" + w.addr
	}
	w.start()
	t.Cleanup(w.stop)
	return w
}

func (w *testWorker) start() {
	w.t.Helper()
	if w.network == "unix" {
		os.Remove(w.addr)
	}
	lis, err := net.Listen(w.network, w.addr)
	if err != nil {
		w.t.Fatal(err)
	}
	if w.network == "tcp" {
		w.addr = lis.Addr().String()
		w.url = "grpc://" + w.addr
	}
	g := grpc.NewServer(grpc.MaxRecvMsgSize(256<<20), grpc.UnaryInterceptor(
		func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if a, ok := req.(*schedulerpb.AbortRequest); ok {
				w.mu.Lock()
				w.aborts = append(w.aborts, a.GetRequestId())
				w.mu.Unlock()
			}
			return h(ctx, req)
		}))
	w.srv.Register(g)
	w.mu.Lock()
	w.g = g
	w.mu.Unlock()
	go g.Serve(lis)
}

func (w *testWorker) stop() {
	w.mu.Lock()
	g := w.g
	w.g = nil
	w.mu.Unlock()
	if g != nil {
		g.Stop()
	}
}

func (w *testWorker) abortsSeen() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.aborts...)
}

// newEngine builds and starts an engine (with the built-in protocols when
// o names none); it is closed at the end of the test.
func newEngine(t *testing.T, o Options) *Engine {
	t.Helper()
	if o.Protocols == nil {
		o.Protocols = builtin.Protocols()
	}
	if o.HealthInterval == 0 {
		o.HealthInterval = 50 * time.Millisecond
	}
	if o.HealthTimeout == 0 {
		o.HealthTimeout = 5 * time.Second
	}
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func newPool(t testing.TB, dir string, reg prometheus.Registerer) *shm.Pool {
	t.Helper()
	p, err := shm.New(shm.Options{Dir: dir, Budget: -1, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// imageRequest builds a Generate request with one image of a 1×gh×gw grid
// (rows of 1536 values in dt), its encoder input placed by batch for w.
func imageRequest(t testing.TB, rid string, w *Worker, batch *shm.Batch, gh, gw int, stream bool) (*protocol.Request, *shm.Buffer) {
	t.Helper()
	dt := w.EncoderDType()
	rows := gh * gw
	var buf *shm.Buffer
	var err error
	if batch != nil {
		buf, err = batch.Place(w.Route(), rows*1536*dt.Size(), "image")
		if err != nil {
			t.Fatal(err)
		}
	}
	data := make([]byte, rows*1536*dt.Size())
	if buf != nil {
		data = buf.Bytes()
	}
	for i := range data {
		data[i] = byte(i % 251)
	}
	input := protocol.InlineTensor("pixel_values", dt, []int{rows, 1536}, data)
	if buf != nil {
		if input.Payload, err = buf.Payload(dt, input.Shape); err != nil {
			t.Fatal(err)
		}
	}
	grid := make([]byte, 24)
	binary.LittleEndian.PutUint64(grid[0:], 1)
	binary.LittleEndian.PutUint64(grid[8:], uint64(gh))
	binary.LittleEndian.PutUint64(grid[16:], uint64(gw))
	pad := uint32(151655)
	n := rows / 4 // merge size 2
	ids := []uint32{151644, 872, 198, 151652}
	off := len(ids)
	for k := 0; k < n; k++ {
		ids = append(ids, pad)
	}
	ids = append(ids, 151653, 151645)
	max := uint32(8)
	return &protocol.Request{
		ID:       rid,
		Stream:   stream,
		InputIDs: ids,
		Sampling: protocol.Sampling{MaxTokens: &max},
		Media: []protocol.MediaItem{{
			Modality:     vision.Image,
			Input:        input,
			Side:         []protocol.Tensor{protocol.InlineTensor("image_grid_thw", tensor.Int64, []int{1, 3}, grid)},
			Placeholders: []protocol.Range{{Offset: off, Length: n}},
			PadToken:     &pad,
		}},
	}, buf
}

// collect reads a stream to its end: the tokens of choice 0 and its last
// event.
func collect(t *testing.T, s *Stream) (streamed []uint32, done *protocol.Event, err error) {
	t.Helper()
	defer s.Close()
	for {
		ev, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return streamed, done, nil
		}
		if err != nil {
			return streamed, done, err
		}
		streamed = append(streamed, ev.Tokens...)
		if ev.Done {
			done = &ev
		}
	}
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// metricValue reads one series of a gauge or counter from reg.
func metricValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			got := map[string]string{}
			for _, lp := range m.GetLabel() {
				got[lp.GetName()] = lp.GetValue()
			}
			for k, v := range labels {
				if got[k] != v {
					continue next
				}
			}
			if m.Gauge != nil {
				return m.Gauge.GetValue()
			}
			return m.Counter.GetValue()
		}
	}
	return 0
}
