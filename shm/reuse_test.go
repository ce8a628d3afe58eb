package shm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/tensor"
)

var reuseRoute = Route{Mode: ModeShm, Limits: Limits{MinBytes: -1}, Reuse: true}

func keepReader(t testing.TB, dir string, keep bool) *Reader {
	t.Helper()
	r, err := NewReader(ReaderOptions{Dir: dir, KeepFiles: keep})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func reuseCounts(t *testing.T, p *Pool) (hits, misses float64) {
	t.Helper()
	return value(t, p.m.reuse.WithLabelValues("hit")), value(t, p.m.reuse.WithLabelValues("miss"))
}

// placeFilled places n bytes (uint8 [n]) for r, fills them with fill and
// returns the wire tensor.
func placeFilled(t testing.TB, b *Batch, r Route, n int, fill byte) (*Buffer, Wire) {
	t.Helper()
	x, err := b.Place(r, n, "image")
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Bytes()) != n {
		t.Fatalf("buffer has %d bytes, want %d", len(x.Bytes()), n)
	}
	for i := range x.Bytes() {
		x.Bytes()[i] = fill + byte(i%7)
	}
	td, err := sealed(x, tensor.Float16, []int{n / 2})
	if err != nil {
		t.Fatal(err)
	}
	return x, td
}

// readCheck reads td as a worker would and checks its bytes.
func readCheck(t testing.TB, r *Reader, td Wire, n int, fill byte) {
	t.Helper()
	v, err := r.Read(td)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if len(v.Data) != n {
		t.Fatalf("read %d bytes, want %d", len(v.Data), n)
	}
	for i, c := range v.Data {
		if c != fill+byte(i%7) {
			t.Fatalf("byte %d is %d, want %d", i, c, fill+byte(i%7))
		}
	}
}

func TestReuseSequential(t *testing.T) {
	reg := prometheus.NewRegistry()
	p, dir := newTestPool(t, Options{Registerer: reg})
	r := keepReader(t, dir, true)
	seen := map[string]bool{}
	sizes := []int{100000, 100000, 100000, 98000, 100000, 60000}
	for i, n := range sizes {
		b := p.NewBatch(context.Background(), fmt.Sprint("r", i))
		x, td := placeFilled(t, b, reuseRoute, n, byte(i*10))
		name := td.Shm.Name
		if seen[name] {
			t.Fatalf("name %s handed out twice", name)
		}
		seen[name] = true
		if got := td.Shm.NBytes; got != uint64(n) {
			t.Fatalf("handle nbytes %d, want %d", got, n)
		}
		if _, ok := parseName(p.Prefix(), name); !ok {
			t.Fatalf("name %q not in the janitor's format", name)
		}
		readCheck(t, r, td, n, byte(i*10))
		// The bytes past the tensor are zero (a larger tensor used it before).
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) != x.Segment().Size() || len(raw) < n || !bytes.Equal(raw[n:], make([]byte, len(raw)-n)) {
			t.Fatalf("file of %d bytes for %d: tail not zero", len(raw), n)
		}
		b.Commit()
		if got := dirNames(t, dir); len(got) != p.Reuse().Segments || !exists(filepath.Join(dir, name)) {
			t.Fatalf("after commit %d: files %v, free %+v", i, got, p.Reuse())
		}
	}
	// 100000 → miss; 100000, 100000, 98000 (fits), 100000 → hits; 60000
	// would waste too much of the 100 KiB segment → miss.
	if h, m := reuseCounts(t, p); h != 4 || m != 2 {
		t.Fatalf("hits %v misses %v, want 4 and 2", h, m)
	}
	st := p.Reuse()
	if st.Segments != 2 || st.Bytes != int64(reuseSize(100000)+reuseSize(60000)) {
		t.Fatalf("free list %+v", st)
	}
	if _, b := p.InUse(); b != st.Bytes {
		t.Fatalf("in use %d, free %d", b, st.Bytes)
	}
	if g := gathered(t, reg); g["mmgate_shm_reuse_free_bytes"] != float64(st.Bytes) || g["mmgate_shm_reuse_total"] != 6 {
		t.Fatalf("metrics %v", g)
	}
	p.Close()
	if got := dirNames(t, dir); len(got) != 0 {
		t.Fatalf("Close left %v", got)
	}
}

// A failed request's segments go back to the free list, not to the janitor.
func TestNoReuseAfterRelease(t *testing.T) {
	p, dir := newTestPool(t, Options{})
	r := keepReader(t, dir, true)
	b := p.NewBatch(context.Background(), "fail")
	_, td := placeFilled(t, b, reuseRoute, 50000, 1)
	first := td.Shm.Name
	b.Release()
	// A released request's segment is removed, never reused: the worker
	// may still be reading it.
	if st := p.Reuse(); st.Segments != 0 {
		t.Fatalf("released segment pooled: %+v", st)
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Fatalf("released segment %s left as %v", first, got)
	}
	if n, bytes := p.InUse(); n != 0 || bytes != 0 {
		t.Fatalf("in use %d %d after release", n, bytes)
	}
	b2 := p.NewBatch(context.Background(), "ok")
	_, td2 := placeFilled(t, b2, reuseRoute, 50000, 2)
	readCheck(t, r, td2, 50000, 2)
	b2.Commit()
	if h, m := reuseCounts(t, p); h != 0 || m != 2 {
		t.Fatalf("hits %v misses %v", h, m)
	}
	if got := dirNames(t, dir); len(got) != 1 || got[0] == first {
		t.Fatalf("files %v (first name %s)", got, first)
	}
	// A batch abandoned by its context unlinks as before: a worker may
	// still be reading.
	ctx, cancel := context.WithCancel(context.Background())
	b3 := p.NewBatch(ctx, "gone")
	placeFilled(t, b3, reuseRoute, 50000, 3)
	cancel()
	waitUntil(t, func() bool { return len(dirNames(t, dir)) == 0 })
	b3.Release()
	if n, bytes := p.InUse(); n != 0 || bytes != 0 {
		t.Fatalf("in use %d %d after abandon", n, bytes)
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Without the capability (or with reuse off) nothing is pooled and the
// worker unlinks what it read.
func TestReuseOff(t *testing.T) {
	for _, c := range []struct {
		name  string
		route Route
		cap   int64
	}{
		{"no capability", Route{Mode: ModeShm, Limits: Limits{MinBytes: -1}}, 0},
		{"reuse disabled", reuseRoute, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, dir := newTestPool(t, Options{ReuseCap: c.cap})
			r := keepReader(t, dir, false)
			for i := range 3 {
				b := p.NewBatch(context.Background(), "r")
				_, td := placeFilled(t, b, c.route, 10000, byte(i))
				readCheck(t, r, td, 10000, byte(i))
				b.Commit()
				if got := dirNames(t, dir); len(got) != 0 {
					t.Fatalf("worker did not unlink: %v", got)
				}
			}
			if st := p.Reuse(); st.Segments != 0 || st.Bytes != 0 {
				t.Fatalf("pooled %+v", st)
			}
			if h, m := reuseCounts(t, p); h != 0 || m != 0 {
				t.Fatalf("hits %v misses %v", h, m)
			}
		})
	}
}

// A free segment that vanished (a worker unlinked it after all) is
// forgotten and replaced, without leaking budget.
func TestReuseSegmentGone(t *testing.T) {
	p, dir := newTestPool(t, Options{Budget: 1 << 20})
	unlinking := keepReader(t, dir, false)
	b := p.NewBatch(nil, "a")
	_, td := placeFilled(t, b, reuseRoute, 40000, 5)
	readCheck(t, unlinking, td, 40000, 5) // unlinks
	b.Commit()
	b2 := p.NewBatch(nil, "b")
	_, td2 := placeFilled(t, b2, reuseRoute, 40000, 6)
	readCheck(t, keepReader(t, dir, true), td2, 40000, 6)
	b2.Commit()
	if h, m := reuseCounts(t, p); h != 0 || m != 2 {
		t.Fatalf("hits %v misses %v", h, m)
	}
	if n, bytes := p.InUse(); n != 1 || bytes != int64(reuseSize(40000)) {
		t.Fatalf("in use %d %d", n, bytes)
	}
	if got := dirNames(t, dir); len(got) != 1 {
		t.Fatalf("files %v", got)
	}
}

// The free list is trimmed to its cap, and emptied for allocations over the
// budget.
func TestReuseCapAndBudget(t *testing.T) {
	const n = 64 << 10
	p, dir := newTestPool(t, Options{ReuseCap: 3 * n, Budget: 6 * n})
	var bs []*Batch
	for i := range 5 {
		b := p.NewBatch(nil, fmt.Sprint(i))
		placeFilled(t, b, reuseRoute, n, 0)
		bs = append(bs, b)
	}
	for _, b := range bs {
		b.Commit()
	}
	if st := p.Reuse(); st.Segments != 3 || st.Bytes != 3*n {
		t.Fatalf("free list %+v, want 3 segments", st)
	}
	if got := dirNames(t, dir); len(got) != 3 {
		t.Fatalf("files %v", got)
	}
	// 4n does not fit beside 3n idle in a 6n budget: the oldest idle
	// segment goes.
	b := p.NewBatch(nil, "big")
	x, err := b.Place(Route{Mode: ModeShm, Limits: Limits{MinBytes: -1}}, 4*n, "image")
	if err != nil || x.Path() != PathShm {
		t.Fatalf("place over idle segments: %v %v", x.Path(), err)
	}
	if st := p.Reuse(); st.Segments != 2 {
		t.Fatalf("free list %+v, want 2 left", st)
	}
	b.Release()
	if _, bytes := p.InUse(); bytes != 2*n {
		t.Fatalf("in use %d", bytes)
	}
}

// No segment is ever in two live batches; names never repeat; accounting
// stays exact with the janitor sweeping.
func TestReuseConcurrent(t *testing.T) {
	p, dir := newTestPool(t, Options{Budget: 64 << 20, SweepInterval: time.Millisecond})
	r := keepReader(t, dir, true)
	var mu sync.Mutex
	names := map[string]bool{}
	stop := make(chan struct{})
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		for {
			select {
			case <-stop:
				return
			default:
				p.Sweep()
			}
		}
	}()
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				b := p.NewBatch(context.Background(), "r")
				fill := byte(g*40 + i)
				var tds []Wire
				for k := range 2 {
					x, err := b.Place(reuseRoute, 20000+k*8000, "image")
					if err != nil {
						t.Error(err)
						return
					}
					for j := range x.Bytes() {
						x.Bytes()[j] = fill
					}
					td, err := sealed(x, tensor.Float16, []int{(20000 + k*8000) / 2})
					if err != nil {
						t.Error(err)
						return
					}
					tds = append(tds, td)
				}
				for _, td := range tds {
					mu.Lock()
					dup := names[td.Shm.Name]
					names[td.Shm.Name] = true
					mu.Unlock()
					if dup {
						t.Errorf("name %s repeated", td.Shm.Name)
					}
					v, err := r.Read(td)
					if err != nil {
						t.Error(err)
						return
					}
					for _, c := range v.Data {
						if c != fill {
							t.Errorf("segment shared: byte %d, want %d", c, fill)
							break
						}
					}
					v.Close()
				}
				if i%3 == 0 {
					b.Release()
				} else {
					b.Commit()
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-swept
	st := p.Reuse()
	if n, bytes := p.InUse(); n != st.Segments || bytes != st.Bytes {
		t.Fatalf("in use %d %d, free %+v", n, bytes, st)
	}
	if got := dirNames(t, dir); len(got) != st.Segments {
		t.Fatalf("%d files, %d free segments", len(got), st.Segments)
	}
	if h, _ := reuseCounts(t, p); h == 0 {
		t.Fatal("no reuse")
	}
}

// This pool's janitor renews its idle segments instead of removing them, so
// another gateway's janitor does not remove them either; once the pool stops
// sweeping (its process died), they expire.
func TestReuseJanitor(t *testing.T) {
	dir := t.TempDir()
	clk := &fakeClock{t: time.Now()}
	p, _ := newTestPool(t, Options{Dir: dir, TTL: 30 * time.Second, SweepInterval: 5 * time.Second, Now: clk.Now})
	other, _ := newTestPool(t, Options{Dir: dir, TTL: 30 * time.Second, Now: clk.Now})
	r := keepReader(t, dir, true)

	b := p.NewBatch(nil, "a")
	_, td := placeFilled(t, b, reuseRoute, 30000, 1)
	readCheck(t, r, td, 30000, 1)
	b.Commit()
	first := td.Shm.Name

	for range 5 { // 5 × 20 s: past several deadlines
		clk.Add(20 * time.Second)
		if n, err := p.Sweep(); err != nil || n != 0 {
			t.Fatalf("own janitor removed %d (%v)", n, err)
		}
		if n, _ := other.Sweep(); n != 0 {
			t.Fatal("another gateway's janitor removed a pooled segment of a live pool")
		}
		if st := p.Reuse(); st.Segments != 1 {
			t.Fatalf("free list %+v", st)
		}
	}
	got := dirNames(t, dir)
	if len(got) != 1 || got[0] == first {
		t.Fatalf("files %v: want one renewed segment", got)
	}
	b = p.NewBatch(nil, "b")
	_, td = placeFilled(t, b, reuseRoute, 30000, 2)
	readCheck(t, r, td, 30000, 2)
	b.Commit()
	if h, _ := reuseCounts(t, p); h != 1 {
		t.Fatalf("hits %v", h)
	}

	// The owner stops sweeping: past the deadline, others remove it.
	clk.Add(31 * time.Second)
	if n, _ := other.Sweep(); n != 1 || len(dirNames(t, dir)) != 0 {
		t.Fatalf("orphan of a dead pool not removed: %d, %v", n, dirNames(t, dir))
	}
	// Were the owner alive after all, it notices and makes a new segment.
	b = p.NewBatch(nil, "c")
	_, td = placeFilled(t, b, reuseRoute, 30000, 3)
	readCheck(t, r, td, 30000, 3)
	b.Commit()
	if h, m := reuseCounts(t, p); h != 1 || m != 2 {
		t.Fatalf("hits %v misses %v", h, m)
	}
	if n, bytes := p.InUse(); n != 1 || bytes != int64(reuseSize(30000)) {
		t.Fatalf("in use %d %d", n, bytes)
	}

	// Idle for more than idleTTLs TTLs, the segment is removed.
	for range 7 {
		clk.Add(20 * time.Second)
		p.Sweep()
	}
	if n, bytes := p.InUse(); n != 0 || bytes != 0 || len(dirNames(t, dir)) != 0 || p.Reuse().Segments != 0 {
		t.Fatalf("idle segment kept: in use %d %d, files %v", n, bytes, dirNames(t, dir))
	}
}

// TestTrimIdleAndHooks: the idle bytes are reported on every change,
// TrimIdle gives back the oldest idle segments, and OnRemoved lets a keeping
// reader in the same process drop its mappings of them (Reader.Prune).
func TestTrimIdleAndHooks(t *testing.T) {
	const n = 64 << 10
	var (
		mu      sync.Mutex
		idle    []int64
		removed int
		r       *Reader
	)
	p, dir := newTestPool(t, Options{ReuseCap: 8 * n,
		OnIdleBytes: func(b int64) { mu.Lock(); idle = append(idle, b); mu.Unlock() },
		OnRemoved:   func() { mu.Lock(); removed++; mu.Unlock(); r.Prune() }})
	r = keepReader(t, dir, true)
	last := func() int64 {
		mu.Lock()
		defer mu.Unlock()
		if len(idle) == 0 {
			return -1
		}
		return idle[len(idle)-1]
	}
	var bs []*Batch
	for i := range 3 {
		b := p.NewBatch(nil, fmt.Sprint(i))
		_, td := placeFilled(t, b, reuseRoute, n, byte(i))
		readCheck(t, r, td, n, byte(i))
		bs = append(bs, b)
	}
	for _, b := range bs {
		b.Commit()
	}
	if got := last(); got != 3*n {
		t.Fatalf("idle reported %d, want %d", got, 3*n)
	}
	if got := cachedMaps(r); got != 3 {
		t.Fatalf("reader maps %d files, want 3", got)
	}
	if freed := p.TrimIdle(n + 1); freed != 2*n {
		t.Fatalf("TrimIdle freed %d, want two segments (%d)", freed, 2*n)
	}
	if got := last(); got != n || p.Reuse().Bytes != n {
		t.Fatalf("idle reported %d, free list %+v", got, p.Reuse())
	}
	mu.Lock()
	rm := removed
	mu.Unlock()
	if rm != 1 || len(dirNames(t, dir)) != 1 {
		t.Fatalf("OnRemoved called %d times, files %v", rm, dirNames(t, dir))
	}
	if got := cachedMaps(r); got != 1 {
		t.Fatalf("after Prune the reader maps %d files, want 1", got)
	}
	// Taking the last idle segment reports 0.
	b := p.NewBatch(nil, "again")
	placeFilled(t, b, reuseRoute, n, 9)
	if got := last(); got != 0 {
		t.Fatalf("idle reported %d after a hit, want 0", got)
	}
	b.Release()
	if p.TrimIdle(n) != 0 {
		t.Error("TrimIdle freed bytes from an empty free list")
	}
}

func cachedMaps(r *Reader) int {
	r.maps.mu.Lock()
	defer r.maps.mu.Unlock()
	return len(r.maps.maps)
}
