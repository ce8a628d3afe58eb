package cpupool

import (
	"bytes"
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunBoundsAndPriority(t *testing.T) {
	p, err := New(Options{Slots: 2, Nice: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := p.Run(context.Background(), func() {
				n := running.Add(1)
				for {
					m := peak.Load()
					if n <= m || peak.CompareAndSwap(m, n) {
						break
					}
				}
				time.Sleep(5 * time.Millisecond)
				running.Add(-1)
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if peak.Load() > 2 {
		t.Errorf("%d tasks ran at once with 2 slots", peak.Load())
	}
	if runtime.GOOS == "linux" && p.PriorityError() == nil {
		var nice int
		p.Run(context.Background(), func() { nice, _ = threadNice() })
		if nice != 7 {
			t.Errorf("slot thread nice = %d, want 7", nice)
		}
	}
}

func TestIdlePolicy(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("scheduling policies are set on Linux only")
	}
	p, err := New(Options{Slots: 1, Idle: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.PriorityError(); err != nil {
		t.Fatalf("SCHED_IDLE refused: %v", err)
	}
	var idle, caller bool
	p.Run(context.Background(), func() { idle, _ = threadIdle() })
	caller, _ = threadIdle()
	if !idle || caller {
		t.Errorf("slot thread idle = %v (want true), caller idle = %v (want false)", idle, caller)
	}
}

func TestRunCancelAndPanic(t *testing.T) {
	p, err := New(Options{Slots: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	block := make(chan struct{})
	go p.Run(context.Background(), func() { <-block })
	time.Sleep(10 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	ran := false
	if err := p.Run(ctx, func() { ran = true }); err == nil || ran {
		t.Errorf("with no free slot: err=%v ran=%v", err, ran)
	}
	close(block)
	func() {
		defer func() {
			if recover() != "boom" {
				t.Error("panic not raised in the caller")
			}
		}()
		p.Run(context.Background(), func() { panic("boom") })
	}()
	// The slot survives a panicking task.
	if err := p.Run(context.Background(), func() {}); err != nil {
		t.Error(err)
	}
}

func TestCopyAndClone(t *testing.T) {
	for _, n := range []int{0, 1, Piece - 1, Piece, Piece + 1, 3*Piece + 17} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(i*7 + i>>9)
		}
		dst := make([]byte, n+5)
		if got := Copy(dst, src); got != n {
			t.Fatalf("Copy(%d) = %d", n, got)
		}
		if string(dst[:n]) != string(src) || string(dst[n:]) != "\x00\x00\x00\x00\x00" {
			t.Fatalf("Copy(%d) wrote the wrong bytes", n)
		}
		short := make([]byte, n/2)
		if got := Copy(short, src); got != n/2 || string(short) != string(src[:n/2]) {
			t.Fatalf("Copy into %d of %d bytes = %d", n/2, n, got)
		}
		if c := Clone(src); string(c) != string(src) || (n > 0 && &c[0] == &src[0]) {
			t.Fatalf("Clone(%d) is not a separate copy", n)
		}
		var w bytes.Buffer
		if Write(&w, src); w.String() != string(src) {
			t.Fatalf("Write(%d) fed the wrong bytes", n)
		}
	}
}
