package shm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sys/unix"

	"github.com/mmgate/mmgate/tensor"
)

func newTestPool(t *testing.T, o Options) (*Pool, string) {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Usable() {
		t.Fatalf("pool not usable: %v", p.Probe().Err)
	}
	t.Cleanup(func() { p.Close() })
	return p, o.Dir
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func TestAllocCommitRelease(t *testing.T) {
	p, dir := newTestPool(t, Options{})
	if got := dirNames(t, dir); len(got) != 0 {
		t.Fatalf("probe left %v", got)
	}
	b := p.NewBatch(context.Background(), "r1")
	s, err := b.Alloc(10000)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Bytes()) != 10000 {
		t.Fatalf("len %d", len(s.Bytes()))
	}
	for i := range s.Bytes() {
		s.Bytes()[i] = byte(i)
	}
	fi, err := os.Lstat(filepath.Join(dir, s.Name()))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || !fi.Mode().IsRegular() || fi.Size() != 10000 {
		t.Fatalf("mode %v size %d", fi.Mode(), fi.Size())
	}
	if h := s.Handle(); h.Name != s.Name() || h.NBytes != 10000 || h.Offset != 0 || h.Owner != p.Owner() {
		t.Fatalf("handle %v", h)
	}
	if n, by := p.InUse(); n != 1 || by != 10000 {
		t.Fatalf("in use %d %d", n, by)
	}
	if err := s.Seal(); err != nil {
		t.Fatal(err)
	}
	if s.Bytes() != nil {
		t.Fatal("Bytes after Seal")
	}
	fi, _ = os.Lstat(filepath.Join(dir, s.Name()))
	if fi.Mode().Perm() != 0o400 {
		t.Fatalf("sealed mode %v", fi.Mode())
	}
	got, _ := os.ReadFile(filepath.Join(dir, s.Name()))
	for i := range got {
		if got[i] != byte(i) {
			t.Fatalf("byte %d = %d", i, got[i])
		}
	}
	b.Commit()
	b.Release() // no effect after Commit
	if _, err := os.Lstat(filepath.Join(dir, s.Name())); err != nil {
		t.Fatalf("committed segment removed: %v", err)
	}
	// Handed off: still counted until the worker removes it.
	if n, _ := p.InUse(); n != 1 {
		t.Fatalf("in use after commit %d", n)
	}
	os.Remove(filepath.Join(dir, s.Name()))
	if _, err := p.Sweep(); err != nil {
		t.Fatal(err)
	}
	if n, by := p.InUse(); n != 0 || by != 0 {
		t.Fatalf("in use after worker unlink %d %d", n, by)
	}

	b2 := p.NewBatch(context.Background(), "r2")
	for range 3 {
		if _, err := b2.Alloc(5000); err != nil {
			t.Fatal(err)
		}
	}
	b2.Release()
	b2.Commit()
	if got := dirNames(t, dir); len(got) != 0 {
		t.Fatalf("release left %v", got)
	}
	if _, err := b2.Alloc(10); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("alloc after release: %v", err)
	}
}

func TestCancelReleases(t *testing.T) {
	p, dir := newTestPool(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	b := p.NewBatch(ctx, "r")
	x, err := b.Place(Route{Mode: ModeShm, Limits: Limits{MinBytes: -1}}, 4096, "image")
	if err != nil || x.Path() != PathShm {
		t.Fatalf("place: %v %v", x, err)
	}
	if len(dirNames(t, dir)) != 1 {
		t.Fatal("no segment")
	}
	cancel()
	deadline := time.Now().Add(2 * time.Second)
	for len(dirNames(t, dir)) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("cancelled request left %v", dirNames(t, dir))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n, by := p.InUse(); n != 0 || by != 0 {
		t.Fatalf("in use %d %d", n, by)
	}
	// The producer may still be writing: its mapping stays valid until
	// the owner ends the batch.
	mem := x.Bytes()
	for i := range mem {
		mem[i] = 7
	}
	if _, err := b.Place(Route{}, 10, "image"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("place after cancel: %v", err)
	}
	b.Commit() // behaves as Release on an abandoned batch
	if n, _ := p.InUse(); n != 0 {
		t.Fatal("abandoned segment handed off")
	}
}

func TestGroupPermissions(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("fchown to another group needs root")
	}
	p, dir := newTestPool(t, Options{ShareWithGroup: true, GID: 4242})
	b := p.NewBatch(nil, "r")
	s, err := b.Alloc(100)
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Lstat(filepath.Join(dir, s.Name()), &st); err != nil {
		t.Fatal(err)
	}
	if st.Mode&0o777 != 0o640 || st.Gid != 4242 {
		t.Fatalf("mode %o gid %d", st.Mode&0o777, st.Gid)
	}
	s.Seal()
	unix.Lstat(filepath.Join(dir, s.Name()), &st)
	if st.Mode&0o777 != 0o440 {
		t.Fatalf("sealed mode %o", st.Mode&0o777)
	}
	b.Release()
}

func TestBudgetAndFallback(t *testing.T) {
	reg := prometheus.NewRegistry()
	p, _ := newTestPool(t, Options{Budget: 10000, Registerer: reg})
	r := Route{Mode: ModeShm, Limits: Limits{MinBytes: -1, MaxInline: 8000}, Runtime: "rt"}
	b := p.NewBatch(nil, "r")
	defer b.Release()
	x1, err := b.Place(r, 6000, "image")
	if err != nil || x1.Path() != PathShm {
		t.Fatalf("first: %v %v", x1, err)
	}
	// Over budget, fits inline: falls back, counted.
	x2, err := b.Place(r, 6000, "image")
	if err != nil || x2.Path() != PathInline || len(x2.Bytes()) != 6000 {
		t.Fatalf("second: %v %v", x2, err)
	}
	if v := value(t, p.m.fallbacks.WithLabelValues("rt", "over_budget")); v != 1 {
		t.Fatalf("fallbacks %v", v)
	}
	// Over budget and over the inline limit: too large.
	if _, err := b.Place(r, 9000, "image"); !errors.Is(err, ErrTooLarge) || !errors.Is(err, ErrOverBudget) {
		t.Fatalf("third: %v", err)
	}
	// Inline-only worker, tensor over the inline limit.
	if _, err := b.Place(Route{Mode: ModeInline, Limits: r.Limits}, 9000, "image"); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("inline too large: %v", err)
	}
	if v := value(t, p.m.tensors.WithLabelValues("rt", "image", "shm")); v != 1 {
		t.Fatalf("shm tensors %v", v)
	}
	if v := value(t, p.m.bytes.WithLabelValues("rt", "image", "inline")); v != 6000 {
		t.Fatalf("inline bytes %v", v)
	}
	td, err := x1.Payload(tensor.Float32, []int{1500})
	if err != nil || td.Shm == nil || td.Shm.NBytes != 6000 {
		t.Fatalf("tensor data %v %v", td, err)
	}
	if _, err := x2.Payload(tensor.Float32, []int{1501}); !errors.Is(err, tensor.ErrShape) {
		t.Fatalf("bad shape: %v", err)
	}
	g := gathered(t, reg)
	if g["mmgate_shm_bytes_in_use"] != 6000 || g["mmgate_shm_segments_in_use"] != 1 {
		t.Fatalf("gauges %v", g)
	}
	b.Commit()
	if g := gathered(t, reg); g["mmgate_mm_transport_seconds"] != 2 {
		t.Fatalf("histogram count %v", g)
	}
}

func TestUnusableDir(t *testing.T) {
	p, err := New(Options{Dir: filepath.Join(t.TempDir(), "missing")})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Usable() || p.Probe().Err == nil || len(p.Probe().Warnings) == 0 {
		t.Fatalf("probe %+v", p.Probe())
	}
	b := p.NewBatch(nil, "r")
	x, err := b.Place(Route{Mode: ModeShm, Limits: Limits{MinBytes: -1}}, 100, "image")
	if err != nil || x.Path() != PathInline {
		t.Fatalf("place: %v %v", x, err)
	}
	if v := value(t, p.m.fallbacks.WithLabelValues("", "unavailable")); v != 1 {
		t.Fatalf("fallbacks %v", v)
	}
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{{Prefix: "a/b"}, {Prefix: ".."}, {TTL: -1}} {
		if _, err := New(o); !errors.Is(err, ErrBadOptions) {
			t.Errorf("New(%+v) = %v", o, err)
		}
	}
}

// A name the writer might use, already taken by an attacker's symlink or
// file, is never followed or reused.
func TestCreateRefusesExistingName(t *testing.T) {
	p, dir := newTestPool(t, Options{})
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	const link, file = "mmgate-planted-link", "mmgate-planted-file"
	if err := os.Symlink(victim, filepath.Join(dir, link)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte("other"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{link, file} {
		SetTestName(p, func() string { return name })
		b := p.NewBatch(nil, "r")
		if _, err := b.Alloc(4096); !errors.Is(err, unix.EEXIST) {
			t.Errorf("alloc over %s: %v", name, err)
		}
		b.Release()
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("symlink target changed: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, file)); string(b) != "other" {
		t.Fatalf("existing file changed: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(dir, link)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("planted symlink touched: %v", err)
	}
	// A forced name without our prefix is refused outright.
	SetTestName(p, func() string { return "victim" })
	if _, err := p.NewBatch(nil, "r").Alloc(10); err == nil {
		t.Fatal("alloc with a foreign name accepted")
	}
}
