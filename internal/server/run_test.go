package server

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
)

// startRun runs a Server over b on a loopback port with o until the
// returned stop is called; stop returns Run's error.
func startRun(t *testing.T, b Backend, log *slog.Logger, o RunOptions) (addr string, stop func() error) {
	t.Helper()
	s, err := New(Options{Backend: b, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	o.Ready = func() { close(ready) }
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx, l, o) }()
	<-ready
	return l.Addr().String(), func() error {
		cancel()
		select {
		case err := <-ran:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return")
			return nil
		}
	}
}

// Run serves until its context ends; a request still running after
// ShutdownTimeout is cut with a 503 shutting_down, and Run returns nil
// and no longer accepts connections.
func TestRunShutdownCutsLateRequests(t *testing.T) {
	b := &fakeBackend{reply: "x", block: make(chan struct{}), started: make(chan struct{}, 1)}
	var logs bytes.Buffer
	addr, stop := startRun(t, b, slog.New(slog.NewTextHandler(&logs, nil)), RunOptions{ShutdownTimeout: 50 * time.Millisecond})
	answer := postAsync(t, "http://"+addr)
	<-b.started
	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if status, code := answer(); status != 503 || code != "shutting_down" {
		t.Errorf("cut request: %d %q", status, code)
	}
	if !strings.Contains(logs.String(), "cutting the requests still in flight") {
		t.Errorf("no cut in the log:\n%s", logs.String())
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Error("still accepting after Run returned")
	}
}

// A request that finishes within ShutdownTimeout is answered in full.
func TestRunShutdownLetsRequestsFinish(t *testing.T) {
	b := &fakeBackend{reply: "all done", block: make(chan struct{}), started: make(chan struct{}, 1)}
	addr, stop := startRun(t, b, nil, RunOptions{ShutdownTimeout: time.Minute})
	answer := postAsync(t, "http://"+addr)
	<-b.started
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	time.Sleep(50 * time.Millisecond) // the shutdown has begun
	close(b.block)
	if status, _ := answer(); status != 200 {
		t.Errorf("finished request: %d", status)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}
