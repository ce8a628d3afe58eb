package shm

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// fakeClock is a settable wall clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestJanitorRule(t *testing.T) {
	dir := t.TempDir()
	clk := &fakeClock{t: time.Now()}
	reg := prometheus.NewRegistry()
	p, _ := newTestPool(t, Options{Dir: dir, TTL: 30 * time.Second, Now: clk.Now, Registerer: reg})
	// A second gateway sharing the directory and prefix, with a longer TTL.
	other, _ := newTestPool(t, Options{Dir: dir, TTL: 10 * time.Minute, Now: clk.Now})

	committed := p.NewBatch(nil, "a")
	cs, _ := committed.Alloc(100)
	committed.Commit() // worker never reads it
	filling := p.NewBatch(nil, "b")
	fs, _ := filling.Alloc(100)
	ob := other.NewBatch(nil, "c")
	os1, _ := ob.Alloc(100)
	ob.Commit()

	write := func(name string, age time.Duration) {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte("x"), 0o600)
		mt := time.Now().Add(-age)
		os.Chtimes(path, mt, mt)
	}
	write("mmgate-unparsed-old", time.Hour)
	write("mmgate-unparsed-new", time.Second)
	write("other-producer-old", 48*time.Hour)
	// A name claiming a deadline far in the future but 25 h old (mtime).
	farName, _ := segmentName("mmgate-", "00000000000000aa", time.Now().Add(1000*time.Hour))
	write(farName, 25*time.Hour)

	if n, err := p.Sweep(); err != nil || n != 2 {
		t.Fatalf("first sweep removed %d (%v), want the old unparsed name and the 25 h old one", n, err)
	}
	for _, name := range []string{cs.Name(), fs.Name(), os1.Name(), "mmgate-unparsed-new", "other-producer-old"} {
		if !exists(filepath.Join(dir, name)) {
			t.Fatalf("%s removed too early", name)
		}
	}
	clk.Add(31 * time.Second)
	// The committed segment, and the unparsed name whose mtime + TTL passed.
	if n, _ := p.Sweep(); n != 2 || exists(filepath.Join(dir, cs.Name())) {
		t.Fatalf("after TTL: removed %d; committed segment exists=%v", n, exists(filepath.Join(dir, cs.Name())))
	}
	if !exists(filepath.Join(dir, fs.Name())) {
		t.Fatal("segment still being filled removed by its own janitor")
	}
	if !exists(filepath.Join(dir, os1.Name())) {
		t.Fatal("other gateway's segment removed before its own deadline")
	}
	clk.Add(10 * time.Minute)
	p.Sweep()
	if exists(filepath.Join(dir, os1.Name())) {
		t.Fatal("other gateway's segment not removed after its deadline")
	}
	if !exists(filepath.Join(dir, "other-producer-old")) {
		t.Fatal("name without our prefix removed")
	}
	if n, b := p.InUse(); n != 1 || b != 100 {
		t.Fatalf("in use %d %d (only the filling segment should remain)", n, b)
	}
	if g := gathered(t, reg); g["mmgate_shm_janitor_removed_total"] != 5 {
		t.Fatalf("removed metric %v", g["mmgate_shm_janitor_removed_total"])
	}
	filling.Release()
}

func TestRunJanitor(t *testing.T) {
	p, dir := newTestPool(t, Options{TTL: 50 * time.Millisecond, SweepInterval: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.RunJanitor(ctx); close(done) }()
	b := p.NewBatch(nil, "r")
	s, _ := b.Alloc(100)
	b.Commit()
	deadline := time.Now().Add(5 * time.Second)
	for exists(filepath.Join(dir, s.Name())) {
		if time.Now().After(deadline) {
			t.Fatal("janitor did not remove the orphan")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
}
