package hardening

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/refworker"
	"github.com/mmgate/mmgate/refworker/refworkertest"
	"github.com/mmgate/mmgate/tokenizer"
)

// faultWorker is a TokenSpeed scheduler server that answers every RPC as
// the reference worker does except Generate, whose behaviour is chosen by a
// "fault:NAME" word in the prompt: it sends malformed streams, hangs, ends
// streams early or drops its connections.
type faultWorker struct {
	*refworker.TokenSpeedServer
	tok *tokenizer.Tokenizer

	mu    sync.Mutex
	conns []net.Conn

	running   atomic.Int64 // Generate calls in progress
	cancelled atomic.Int64 // Generate calls whose context the gateway ended
}

// trackingListener remembers accepted connections so that the worker can
// drop them all, as a crashing process would.
type trackingListener struct {
	net.Listener
	w *faultWorker
}

func (l trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.w.mu.Lock()
		l.w.conns = append(l.w.conns, c)
		l.w.mu.Unlock()
	}
	return c, err
}

func (w *faultWorker) dropConnections() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.conns {
		c.Close()
	}
	w.conns = nil
}

func startFaultWorker(t *testing.T, shmDir string) (string, *faultWorker) {
	t.Helper()
	ref, tok := refworkertest.New(t, modelDir, shmDir, nil)
	w := &faultWorker{TokenSpeedServer: ref.TokenSpeed(), tok: tok}
	sock := filepath.Join(t.TempDir(), "fault.sock")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer()
	schedulerpb.RegisterTokenSpeedSchedulerServer(g, w)
	go g.Serve(trackingListener{lis, w})
	t.Cleanup(g.Stop)
	return "unix://" + sock, w
}

func (w *faultWorker) mode(req *schedulerpb.GenerateRequest) string {
	text := w.tok.Decode(req.GetTokenized().GetInputIds(), true)
	i := strings.Index(text, "fault:")
	if i < 0 {
		return ""
	}
	f := strings.Fields(text[i+len("fault:"):])
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func chunk(rid string, ids []uint32, index uint32) *schedulerpb.GenerateResponse {
	return &schedulerpb.GenerateResponse{RequestId: rid, Response: &schedulerpb.GenerateResponse_Chunk{Chunk: &schedulerpb.GenerateStreamChunk{
		TokenIds: ids, PromptTokens: 10, CompletionTokens: uint32(len(ids)), Index: index,
	}}}
}

func complete(rid string, ids []uint32, index uint32) *schedulerpb.GenerateResponse {
	return &schedulerpb.GenerateResponse{RequestId: rid, Response: &schedulerpb.GenerateResponse_Complete{Complete: &schedulerpb.GenerateComplete{
		OutputIds: ids, FinishReason: "stop", PromptTokens: 10, CompletionTokens: uint32(len(ids)), Index: index,
	}}}
}

func (w *faultWorker) Generate(req *schedulerpb.GenerateRequest, stream schedulerpb.TokenSpeedScheduler_GenerateServer) error {
	mode := w.mode(req)
	if mode == "" {
		return w.TokenSpeedServer.Generate(req, stream)
	}
	w.running.Add(1)
	defer w.running.Add(-1)
	ctx := stream.Context()
	rid := req.GetRequestId()
	hello := w.tok.Encode("Hello there, friend")
	hang := func() error {
		<-ctx.Done()
		w.cancelled.Add(1)
		return ctx.Err()
	}
	sendSome := func() error {
		for _, id := range hello[:3] {
			if err := stream.Send(chunk(rid, []uint32{id}, 0)); err != nil {
				return err
			}
		}
		return nil
	}
	switch mode {
	case "hang":
		return hang()
	case "hang-after-chunk":
		if err := sendSome(); err != nil {
			return err
		}
		return hang()
	case "unavailable-mid":
		if err := sendSome(); err != nil {
			return err
		}
		return status.Error(codes.Unavailable, "worker lost its GPU")
	case "internal":
		return status.Error(codes.Internal, "worker bug")
	case "eof-mid":
		return sendSome() // the stream ends with no completion
	case "empty":
		return nil
	case "nil-response":
		if err := sendSome(); err != nil {
			return err
		}
		return stream.Send(&schedulerpb.GenerateResponse{RequestId: rid})
	case "nil-first":
		return stream.Send(&schedulerpb.GenerateResponse{RequestId: rid})
	case "wrong-index":
		if err := sendSome(); err != nil {
			return err
		}
		if err := stream.Send(chunk(rid, hello[3:4], 7)); err != nil {
			return err
		}
		return stream.Send(complete(rid, hello, 7))
	case "huge-index":
		if err := sendSome(); err != nil {
			return err
		}
		return stream.Send(chunk(rid, hello[3:4], 0xFFFFFFFF))
	case "bad-token":
		bad := []uint32{0xFFFFFFF0, 1 << 30}
		if err := stream.Send(chunk(rid, bad, 0)); err != nil {
			return err
		}
		return stream.Send(complete(rid, bad, 0))
	case "wrong-id":
		if err := stream.Send(chunk("somebody-else", hello[:1], 0)); err != nil {
			return err
		}
		return stream.Send(complete("somebody-else", hello[:1], 0))
	case "double-complete":
		if err := stream.Send(complete(rid, hello, 0)); err != nil {
			return err
		}
		return stream.Send(complete(rid, hello, 0))
	case "chunk-after-complete":
		if err := stream.Send(complete(rid, hello, 0)); err != nil {
			return err
		}
		return stream.Send(chunk(rid, hello[:2], 0))
	case "empty-chunks":
		for i := 0; i < 1000; i++ {
			if err := stream.Send(chunk(rid, nil, 0)); err != nil {
				return err
			}
		}
		return stream.Send(complete(rid, nil, 0))
	case "drop-conn":
		if err := sendSome(); err != nil {
			return err
		}
		time.Sleep(50 * time.Millisecond)
		w.dropConnections()
		return hang()
	}
	return status.Errorf(codes.InvalidArgument, "unknown fault %q", mode)
}

func faultRequest(mode string, stream bool) []byte {
	s := "false"
	if stream {
		s = "true"
	}
	return []byte(`{"model":"qwen3-vl","stream":` + s + `,"max_tokens":16,"messages":[{"role":"user","content":"please fault:` + mode + ` now"}]}`)
}

// TestWorkerFaults runs a real gateway against the fault worker: every
// broken answer becomes a clean worker_error (a 502, or after the stream
// started one SSE error event and [DONE]); hung calls are cancelled when
// the client leaves; the gateway stays healthy and leaks nothing.
func TestWorkerFaults(t *testing.T) {
	shm := shmDir(t)
	wurl, w := startFaultWorker(t, shm)
	url, gw := startGateway(t, shm, "--worker", wurl)
	healthy(t, url)
	base := gauge(t, url, "go_goroutines")

	broken := []string{"unavailable-mid", "internal", "eof-mid", "empty", "nil-response", "nil-first",
		"wrong-index", "huge-index", "drop-conn"}
	// Answers that are odd but decodable: either served or refused as a
	// worker error, never anything else.
	odd := []string{"bad-token", "wrong-id", "double-complete", "chunk-after-complete", "empty-chunks"}
	check := func(t *testing.T, mode string, stream, mayServe bool) {
		// A fault that breaks the connection (drop-conn) takes the worker
		// out of the rotation until a health check finds it again; each
		// case starts with it back.
		waitReady(t, gw, url)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		r, err := post(ctx, url, "/v1/chat/completions", faultRequest(mode, stream))
		if err != nil {
			t.Fatalf("%s stream=%v: %v", mode, stream, err)
		}
		t.Logf("%s stream=%v: %v", mode, stream, r)
		switch {
		case r.status == 502 && r.code == "worker_error":
		case stream && r.status == 200 && r.code == "worker_error":
			if !strings.HasSuffix(strings.TrimSpace(string(r.body)), "data: [DONE]") {
				t.Errorf("%s stream: error event not followed by [DONE]: %s", mode, r.body)
			}
		case mayServe && r.status == 200 && r.code == "":
		default:
			t.Errorf("%s stream=%v: got %v, want a worker_error", mode, stream, r)
		}
	}
	for _, m := range broken {
		for _, stream := range []bool{false, true} {
			check(t, m, stream, false)
		}
	}
	for _, m := range odd {
		for _, stream := range []bool{false, true} {
			check(t, m, stream, true)
		}
	}

	// Hung calls: the client gives up; the gateway must end the worker call.
	for _, m := range []string{"hang", "hang-after-chunk"} {
		for _, stream := range []bool{false, true} {
			before := w.cancelled.Load()
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			_, err := post(ctx, url, "/v1/chat/completions", faultRequest(m, stream))
			cancel()
			if err == nil {
				t.Errorf("%s stream=%v: answered while the worker hangs", m, stream)
			}
			waitFor(t, gw, func() bool { return w.cancelled.Load() > before }, m+": worker call cancelled after the client left")
		}
	}
	if !gw.Alive() {
		t.Fatal("gateway died")
	}
	waitFor(t, gw, func() bool { return w.running.Load() == 0 }, "no worker call left running")
	healthy(t, url)
	waitFor(t, gw, func() bool { return gauge(t, url, "go_goroutines") <= base+10 }, "goroutines back to the baseline")
}

// TestWorkerStallTimeout: with a stall timeout, a worker that stops
// answering yields 504 timeout (or, after the stream started, an SSE error
// event with code timeout) instead of holding the request until the client
// gives up.
func TestWorkerStallTimeout(t *testing.T) {
	shm := shmDir(t)
	wurl, w := startFaultWorker(t, shm)
	url, gw := startGateway(t, shm, "--worker", wurl, "--worker-stall-timeout", "500ms")
	for _, c := range []struct {
		mode   string
		stream bool
	}{{"hang", false}, {"hang", true}, {"hang-after-chunk", false}, {"hang-after-chunk", true}} {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		start := time.Now()
		r, err := post(ctx, url, "/v1/chat/completions", faultRequest(c.mode, c.stream))
		cancel()
		if err != nil {
			t.Fatalf("%s stream=%v: %v", c.mode, c.stream, err)
		}
		ok := (r.status == 504 || (c.stream && r.status == 200)) && r.code == "timeout"
		if !ok || time.Since(start) > 10*time.Second {
			t.Errorf("%s stream=%v: got %v after %v, want a timeout error", c.mode, c.stream, r, time.Since(start))
		}
	}
	waitFor(t, gw, func() bool { return w.running.Load() == 0 }, "worker calls aborted")
	healthy(t, url)
}
