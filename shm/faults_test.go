package shm_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sys/unix"

	"github.com/mmgate/mmgate/shm"
)

// TestFaultsPrivateTmpfs runs fault scenarios against a 1 MiB tmpfs mounted
// in a private mount namespace (unshare -m), so the host's /dev/shm is never
// filled. It skips when unshare or mount is not permitted.
func TestFaultsPrivateTmpfs(t *testing.T) {
	if dir := os.Getenv(envFaultsDir); dir != "" {
		faultsInNamespace(t, dir)
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("skipping: unshare(1) not found")
	}
	dir := t.TempDir()
	cmd := exec.Command(unshare, "-m", "--propagation", "private", os.Args[0], "-test.run=^TestFaultsPrivateTmpfs$", "-test.v")
	cmd.Env = append(os.Environ(), envFaultsDir+"="+dir)
	out, err := cmd.CombinedOutput()
	if bytes.Contains(out, []byte("SKIP-MOUNT")) || (err != nil && bytes.Contains(out, []byte("unshare failed"))) {
		t.Skipf("skipping: private mount namespace not permitted here:\n%s", out)
	}
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestFaultsPrivateTmpfs/janitor")) {
		t.Fatalf("fault scenarios failed (%v):\n%s", err, out)
	}
	t.Logf("%s", out)
}

func faultsInNamespace(t *testing.T, dir string) {
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=1m,mode=0700"); err != nil {
		t.Skipf("SKIP-MOUNT: mount tmpfs: %v", err)
	}
	defer unix.Unmount(dir, 0)
	var sf unix.Statfs_t
	if err := unix.Statfs(dir, &sf); err != nil || sf.Type != unix.TMPFS_MAGIC || int64(sf.Blocks)*sf.Bsize != 1<<20 {
		t.Fatalf("private tmpfs not mounted: %v %+v", err, sf)
	}

	newPool := func(t *testing.T, o shm.Options) (*shm.Pool, *prometheus.Registry) {
		reg := prometheus.NewRegistry()
		o.Dir, o.Registerer, o.Budget = dir, reg, -1
		p, err := shm.New(o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p, reg
	}
	metric := func(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() != name {
				continue
			}
			for _, m := range mf.GetMetric() {
				for _, l := range m.GetLabel() {
					if label == "" || l.GetValue() == label {
						return m.GetCounter().GetValue()
					}
				}
				if label == "" {
					return m.GetCounter().GetValue()
				}
			}
		}
		return 0
	}
	waitEmpty := func(t *testing.T, within time.Duration) {
		deadline := time.Now().Add(within)
		for len(listDir(t, dir)) != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("files left: %v", listDir(t, dir))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	route := shm.Route{Mode: shm.ModeShm, Limits: shm.Limits{MinBytes: -1, MaxInline: 4 << 20}, Runtime: "rt"}

	t.Run("probe warns", func(t *testing.T) {
		p, _ := newPool(t, shm.Options{})
		pr := p.Probe()
		if !pr.Writable || pr.Size != 1<<20 || !strings.Contains(strings.Join(pr.Warnings, "\n"), "tmpfs is only 1 MiB") {
			t.Fatalf("probe %+v", pr)
		}
	})

	t.Run("probe reads huge pages option", func(t *testing.T) {
		if p, _ := newPool(t, shm.Options{}); p.Probe().HugePages != "" {
			t.Fatalf("huge = %q on a tmpfs mounted without it", p.Probe().HugePages)
		}
		hdir := t.TempDir()
		if err := unix.Mount("tmpfs", hdir, "tmpfs", 0, "size=4m,huge=within_size"); err != nil {
			t.Skipf("tmpfs huge pages not supported: %v", err)
		}
		defer unix.Unmount(hdir, 0)
		p, err := shm.New(shm.Options{Dir: hdir})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if got := p.Probe().HugePages; got != "within_size" {
			t.Fatalf("huge = %q, want within_size", got)
		}
	})

	t.Run("full tmpfs falls back inline", func(t *testing.T) {
		p, reg := newPool(t, shm.Options{})
		b := p.NewBatch(context.Background(), "full")
		x1, err := b.Place(route, 700<<10, "image")
		if err != nil || x1.Path() != shm.PathShm {
			t.Fatalf("first: %v %v", x1, err)
		}
		x2, err := b.Place(route, 700<<10, "image")
		if err != nil || x2.Path() != shm.PathInline {
			t.Fatalf("second: %v %v", x2, err)
		}
		if v := metric(t, reg, "mmgate_mm_shm_fallbacks_total", "no_space"); v != 1 {
			t.Fatalf("no_space fallbacks = %v", v)
		}
		// Too large for inline and no room: a typed error.
		if _, err := b.Place(route, 5<<20, "image"); !errors.Is(err, shm.ErrTooLarge) || !errors.Is(err, shm.ErrNoSpace) {
			t.Fatalf("third: %v", err)
		}
		if n := len(listDir(t, dir)); n != 1 {
			t.Fatalf("%d files, want only the first segment", n)
		}
		b.Release()
		waitEmpty(t, time.Second)
	})

	t.Run("cancelled request releases", func(t *testing.T) {
		p, _ := newPool(t, shm.Options{})
		ctx, cancel := context.WithCancel(context.Background())
		b := p.NewBatch(ctx, "cancel")
		defer b.Release()
		for range 3 {
			x, err := b.Place(route, 100<<10, "image")
			if err != nil || x.Path() != shm.PathShm {
				t.Fatalf("place: %v %v", x, err)
			}
			for i := range x.Bytes() {
				x.Bytes()[i] = 0xAB
			}
		}
		if n := len(listDir(t, dir)); n != 3 {
			t.Fatalf("%d segments", n)
		}
		cancel()
		waitEmpty(t, time.Second)
	})

	t.Run("cancel frees space while the producer still writes", func(t *testing.T) {
		p, _ := newPool(t, shm.Options{})
		ctx, cancel := context.WithCancel(context.Background())
		b := p.NewBatch(ctx, "cancel-busy")
		x, err := b.Place(route, 700<<10, "image")
		if err != nil || x.Path() != shm.PathShm {
			t.Fatalf("place: %v %v", x, err)
		}
		mem := x.Bytes()
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { // a producer that has not noticed the cancellation
			defer close(done)
			for i := 0; ; i = (i + 4096) % len(mem) {
				select {
				case <-stop:
					return
				default:
					mem[i]++
				}
			}
		}()
		cancel()
		waitEmpty(t, time.Second)
		// The tmpfs pages are free again: another 700 KiB segment fits in
		// the 1 MiB tmpfs while the first batch is still held.
		b2 := p.NewBatch(context.Background(), "next")
		defer b2.Release()
		if y, err := b2.Place(route, 700<<10, "image"); err != nil || y.Path() != shm.PathShm {
			t.Fatalf("space not freed by the cancellation: %v %v", y, err)
		}
		close(stop)
		<-done
		b.Release() // unmaps the stand-in memory
	})

	t.Run("janitor", func(t *testing.T) {
		const ttl = 500 * time.Millisecond
		p, reg := newPool(t, shm.Options{TTL: ttl, SweepInterval: 50 * time.Millisecond})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go p.RunJanitor(ctx)
		t0 := time.Now()
		b := p.NewBatch(context.Background(), "never-read")
		for range 2 {
			if _, err := b.Place(route, 100<<10, "image"); err != nil {
				t.Fatal(err)
			}
		}
		b.Commit() // handed to a worker that never reads
		n := len(listDir(t, dir))
		if time.Since(t0) < ttl/2 && n != 2 {
			t.Fatalf("removed before the TTL: %d left", n)
		}
		waitEmpty(t, 2*time.Second)
		if v := metric(t, reg, "mmgate_shm_janitor_removed_total", ""); v != 2 {
			t.Fatalf("janitor removed = %v", v)
		}
	})
}
