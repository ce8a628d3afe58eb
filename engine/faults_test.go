package engine

import (
	"context"
	"errors"
	"slices"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/engine/protocol"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
)

func (f *fakeWorker) Generate(req *schedulerpb.GenerateRequest, s schedulerpb.TokenSpeedScheduler_GenerateServer) error {
	if f.genErr != nil || f.empty {
		return f.genErr
	}
	if f.started != nil {
		f.started <- req.GetRequestId()
	}
	<-s.Context().Done()
	return status.FromContextError(s.Context().Err()).Err()
}

func (f *fakeWorker) Abort(_ context.Context, req *schedulerpb.AbortRequest) (*schedulerpb.AbortResponse, error) {
	f.mu.Lock()
	f.aborts = append(f.aborts, req.GetRequestId())
	f.mu.Unlock()
	return &schedulerpb.AbortResponse{Success: true}, nil
}

func (f *fakeWorker) abortsSeen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.aborts...)
}

// Worker error statuses become typed errors, and every one releases the
// request's segments (the fake worker never reads them).
func TestWorkerStatusMapping(t *testing.T) {
	cases := []struct {
		code codes.Code
		want error
	}{
		{codes.InvalidArgument, ErrWorkerRejected},
		{codes.DeadlineExceeded, ErrTimeout},
		{codes.ResourceExhausted, ErrOverloaded},
		{codes.Internal, ErrWorker},
		{codes.AlreadyExists, ErrWorker},
		{codes.Unavailable, ErrWorker}, // no other worker to retry on
	}
	for _, c := range cases {
		t.Run(c.code.String(), func(t *testing.T) {
			dir := t.TempDir()
			pool := newPool(t, dir, nil)
			url := startFake(t, &fakeWorker{genErr: status.Error(c.code, "worker says no")})
			e := newEngine(t, Options{Workers: []WorkerConfig{{URL: url, Transport: shm.ModeShm, ShmMinBytes: -1}}, Pool: pool, HealthInterval: 1 << 40})
			w, err := e.Pick("fake", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			batch := pool.NewBatch(context.Background(), "m")
			req, buf := imageRequest(t, "m", w, batch, 2, 2, true)
			if buf.Path() != shm.PathShm || len(dirEntries(t, dir)) != 1 {
				t.Fatal("tensor not in shm")
			}
			_, err = e.Generate(context.Background(), w, req, batch)
			var we *WorkerError
			if !errors.Is(err, c.want) || !errors.As(err, &we) || we.Code != c.code || we.Message != "worker says no" || we.Worker != url {
				t.Fatalf("err = %v", err)
			}
			if left := dirEntries(t, dir); len(left) != 0 {
				t.Errorf("segments left: %v", left)
			}
			if n, _ := pool.InUse(); n != 0 {
				t.Errorf("%d segments held", n)
			}
			if w.InFlight() != 0 {
				t.Errorf("in flight %d", w.InFlight())
			}
		})
	}
}

// A caller that gives up before the worker's first response: the worker
// gets an Abort and the segments are released.
func TestCancelBeforeFirstResponse(t *testing.T) {
	dir := t.TempDir()
	pool := newPool(t, dir, nil)
	fw := &fakeWorker{started: make(chan string, 1)}
	url := startFake(t, fw)
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: url, ShmMinBytes: -1, Transport: shm.ModeShm}}, Pool: pool})
	w, _ := e.Pick("fake", nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	batch := pool.NewBatch(context.Background(), "early")
	req, _ := imageRequest(t, "early", w, batch, 2, 2, true)
	done := make(chan error, 1)
	go func() {
		_, err := e.Generate(ctx, w, req, batch)
		done <- err
	}()
	if rid := <-fw.started; rid != "early" {
		t.Fatalf("worker got %q", rid)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	waitFor(t, "Abort", func() bool { return slices.Contains(fw.abortsSeen(), "early") })
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("segments left: %v", left)
	}
	if w.InFlight() != 0 {
		t.Errorf("in flight %d", w.InFlight())
	}
}

func TestEmptyStream(t *testing.T) {
	url := startFake(t, &fakeWorker{empty: true})
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: url}}})
	w, _ := e.Pick("fake", nil, nil)
	_, err := e.Generate(context.Background(), w, &protocol.Request{ID: "e"}, nil)
	var we *WorkerError
	if !errors.Is(err, ErrWorker) || !errors.As(err, &we) || we.Code != codes.Internal || we.Message != "stream ended without a response" {
		t.Errorf("err = %v", err)
	}
}
