package engine

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/mmgate/mmgate/refworker"
	"github.com/mmgate/mmgate/shm"
)

// A worker that never answers: with StallTimeout the call fails with
// ErrTimeout soon after, the worker gets an Abort, and the segments are
// released.
func TestStallBeforeFirstResponse(t *testing.T) {
	dir := t.TempDir()
	pool := newPool(t, dir, nil)
	fw := &fakeWorker{started: make(chan string, 1)}
	url := startFake(t, fw)
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: url, ShmMinBytes: -1, Transport: shm.ModeShm}}, Pool: pool, StallTimeout: 200 * time.Millisecond})
	w, _ := e.Pick("fake", nil, nil)
	batch := pool.NewBatch(context.Background(), "hung")
	req, _ := imageRequest(t, "hung", w, batch, 2, 2, true)
	start := time.Now()
	_, err := e.Generate(context.Background(), w, req, batch)
	var we *WorkerError
	if !errors.Is(err, ErrTimeout) || !errors.As(err, &we) || we.Code != codes.DeadlineExceeded {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 5*time.Second {
		t.Errorf("failed after %v with a 200 ms stall timeout", d)
	}
	waitFor(t, "Abort", func() bool { return slices.Contains(fw.abortsSeen(), "hung") })
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("segments left: %v", left)
	}
	if w.InFlight() != 0 {
		t.Errorf("in flight %d", w.InFlight())
	}
}

// A worker that goes silent mid-stream (1 s between tokens, 300 ms stall
// timeout): Recv fails with ErrTimeout and the worker call ends.
func TestStallMidStream(t *testing.T) {
	dir := t.TempDir()
	wk := startWorker(t, "unix", dir, func(o *refworker.Options) { o.TokenDelay = time.Second })
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: wk.url, Transport: shm.ModeInline}}, StallTimeout: 300 * time.Millisecond})
	w, err := e.Pick(model, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := imageRequest(t, "slow", w, nil, 2, 2, true)
	s, err := e.Generate(context.Background(), w, req, nil)
	if err != nil {
		t.Fatalf("first response: %v", err)
	}
	defer s.Close()
	if _, _, err := collect(t, s); !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	waitFor(t, "worker call ended", func() bool { return w.InFlight() == 0 })
}
