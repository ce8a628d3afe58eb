package soak

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/mmgate/mmgate/internal/testutil/procs"
)

// fillerName is the file that fills the shm tmpfs; it is not a leftover.
const fillerName = "soak-filler"

// deployment is the gateway, its workers and the shm directory.
type deployment struct {
	cfg     *Config
	prefix  []string // nsenter prefix, or nil
	shmDir  string   // as the processes see it
	shmView string   // as this process sees it
	url     string

	mu      sync.Mutex
	workers []*procs.Proc
	wargs   [][]string
	wsock   []string
	gateway *procs.Proc
}

// spawn starts the binary with args, inside the namespace if there is one.
func (d *deployment) spawn(name string, args []string) (*procs.Proc, error) {
	argv := append(append(slices.Clone(d.prefix), d.cfg.Binary), args...)
	return procs.Spawn(name, argv...)
}

func (d *deployment) start(ctx context.Context) error {
	cfg := d.cfg
	for i := 0; i < cfg.Workers; i++ {
		sock := filepath.Join(cfg.WorkDir, "w"+strconv.Itoa(i)+".sock")
		args := procs.WorkerArgs(sock, d.shmDir, "--model", cfg.ModelDir, "--log-level", "warn")
		if cfg.Protocol != "" {
			args = append(args, "--protocol", cfg.Protocol)
		}
		if cfg.RejectEvery > 0 {
			args = append(args, "--reject-every", strconv.Itoa(cfg.RejectEvery))
		}
		if cfg.TokenDelay > 0 {
			args = append(args, "--token-delay", cfg.TokenDelay.String())
		}
		d.wargs = append(d.wargs, args)
		d.wsock = append(d.wsock, sock)
		d.workers = append(d.workers, nil)
		if err := d.startWorker(ctx, i); err != nil {
			return err
		}
	}
	addr, err := procs.LoopbackAddr()
	if err != nil {
		return err
	}
	args := procs.ServeArgs(addr, d.shmDir, "--model", cfg.ModelDir,
		"--shm-ttl", cfg.JanitorTTL.String(), "--shm-sweep-interval", cfg.JanitorTick.String(),
		"--cache-bytes", strconv.FormatInt(cfg.CacheBytes, 10), "--log-level", "warn",
		// The RSS check looks for memory the gateway holds on to. At the
		// default collector target (300) garbage may reach three times the
		// live heap before a collection, slack that would hide a leak of
		// that size and moves with timing; at 100 it is one live heap.
		"--gc-percent", "100")
	if cfg.ShmBudget > 0 {
		args = append(args, "--shm-budget", strconv.FormatInt(cfg.ShmBudget, 10))
	}
	if cfg.TensorBudget > 0 {
		args = append(args, "--max-tensor-bytes-in-flight", strconv.FormatInt(cfg.TensorBudget, 10))
	}
	if cfg.MaxInFlight > 0 {
		args = append(args, "--max-in-flight", strconv.Itoa(cfg.MaxInFlight))
	}
	for _, s := range d.wsock {
		args = append(args, "--worker", "unix://"+s)
	}
	if d.gateway, err = d.spawn("gateway", args); err != nil {
		return err
	}
	d.url = "http://" + addr
	return d.waitReady(ctx, 30*time.Second)
}

// waitReady waits until the gateway has a healthy worker.
func (d *deployment) waitReady(ctx context.Context, within time.Duration) error {
	return procs.Poll(ctx, d.gateway, within, "gateway ready at "+d.url, func() bool {
		return procs.Ready(d.url + "/health/ready")
	})
}

func (d *deployment) startWorker(ctx context.Context, i int) error {
	os.Remove(d.wsock[i])
	p, err := d.spawn("worker "+strconv.Itoa(i), d.wargs[i])
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.workers[i] = p
	d.mu.Unlock()
	return procs.Poll(ctx, p, 30*time.Second, d.wsock[i], func() bool {
		_, err := os.Stat(d.wsock[i])
		return err == nil
	})
}

func (d *deployment) worker(i int) *procs.Proc {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.workers[i]
}

func (d *deployment) killAndRestart(ctx context.Context, i int) error {
	d.worker(i).Kill()
	time.Sleep(300 * time.Millisecond)
	return d.startWorker(ctx, i)
}

// reviveAll restarts any dead worker and waits until the gateway is ready.
func (d *deployment) reviveAll(ctx context.Context) error {
	for i := range d.wsock {
		if !d.worker(i).Alive() {
			if err := d.startWorker(ctx, i); err != nil {
				return err
			}
		}
	}
	return d.waitReady(ctx, 10*time.Second)
}

// fill takes all but 64 KiB of the tmpfs for hold, then frees it.
func (d *deployment) fill(ctx context.Context, hold time.Duration) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(d.shmView, &st); err != nil {
		return err
	}
	free := int64(st.Bavail)*int64(st.Bsize) - 64<<10
	if free <= 0 {
		return nil
	}
	path := filepath.Join(d.shmView, fillerName)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer os.Remove(path)
	buf := make([]byte, 1<<20)
	for free > 0 {
		n := min(free, int64(len(buf)))
		if _, err := f.Write(buf[:n]); err != nil {
			break // full: that is the point
		}
		free -= n
	}
	f.Close()
	select {
	case <-ctx.Done():
	case <-time.After(hold):
	}
	return nil
}

// segments lists what is left in the shm directory (the filler excluded).
func (d *deployment) segments() []string {
	s, _ := procs.Segments(d.shmView, fillerName)
	return s
}

func (d *deployment) stop() {
	if d.gateway != nil {
		d.gateway.Stop(15 * time.Second)
	}
	d.mu.Lock()
	ws := slices.Clone(d.workers)
	d.mu.Unlock()
	for _, w := range ws {
		if w != nil {
			w.Stop(10 * time.Second)
		}
	}
}
