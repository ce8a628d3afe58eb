package transportbench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/mmgate/mmgate/shm"
)

// ReusePrefix names the shm-reuse segments; it does not start with the
// default "mmgate-" so that gateways' janitors leave them alone.
const ReusePrefix = "mmgatebench-"

// BenchOptions configures Bench, a whole `mmgate bench transport` run.
type BenchOptions struct {
	Sizes  []int    // bytes, multiples of 1 KiB (see ParseSizes)
	Paths  []string // nil = AllPaths (Run's default)
	Runs   int      // measured runs per size and path (default 10)
	Warmup int      // unmeasured runs first
	ShmDir string   // the shared-memory directory ("" = /dev/shm)
	// WorkerCommand is the command line of a worker process: one that
	// calls RunWorker with the flags Bench appends (--listen, --shm-dir,
	// --max-msg, --keep-files, --prefix) and exits when its stdin closes,
	// e.g. the mmgate binary and "bench", "transport-worker". Required.
	WorkerCommand []string
	Logger        *slog.Logger // the pools' logger; nil discards
	// Progress receives the shared-memory line, a line per size and path
	// and the workers' stderr; nil discards.
	Progress io.Writer
}

// Bench makes the pools, starts the worker processes (one that unlinks
// what it reads, on TCP and a unix socket, and one that keeps segments for
// shm-reuse when asked for), runs the measurements and stops the workers.
// It returns the results and what the shared-memory directory offered.
func Bench(ctx context.Context, o BenchOptions) ([]Result, shm.Probe, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	pool, err := shm.New(shm.Options{Dir: o.ShmDir, Budget: -1, Logger: o.Logger})
	if err != nil {
		return nil, shm.Probe{}, err
	}
	defer pool.Close()
	// The shm-reuse segments live for the whole run: their own prefix and
	// a long TTL keep every janitor on the directory away from them.
	reusePool, err := shm.New(shm.Options{Dir: o.ShmDir, Budget: -1, Prefix: ReusePrefix, TTL: 24 * time.Hour, Logger: o.Logger})
	if err != nil {
		return nil, shm.Probe{}, err
	}
	defer reusePool.Close()
	pr := pool.Probe()
	if pr.Writable {
		fmt.Fprintf(o.Progress, "shared memory: %s\n", DescribeShm(pr))
	}
	if slices.Contains(o.Paths, PathShm) && !pool.Usable() {
		return nil, pr, fmt.Errorf("shared memory not usable: %v", pr.Err)
	}
	tmp, err := os.MkdirTemp("", "mmgate-bench-")
	if err != nil {
		return nil, pr, err
	}
	defer os.RemoveAll(tmp)
	child, err := o.startWorker(ctx, 2, "--listen", "127.0.0.1:0", "--listen", "unix://"+filepath.Join(tmp, "worker.sock"),
		"--shm-dir", o.ShmDir, "--max-msg", strconv.Itoa(512<<20))
	if err != nil {
		return nil, pr, err
	}
	defer child.Stop()
	keepAddr := ""
	if slices.Contains(o.Paths, PathShmReuse) {
		keep, err := o.startWorker(ctx, 1, "--listen", "unix://"+filepath.Join(tmp, "keep.sock"), "--shm-dir", o.ShmDir,
			"--keep-files", "--prefix", ReusePrefix)
		if err != nil {
			return nil, pr, err
		}
		defer keep.Stop()
		keepAddr = keep.Addrs[0]
	}
	res, err := Run(ctx, Config{
		Sizes: o.Sizes, Paths: o.Paths, Runs: o.Runs, Warmup: o.Warmup,
		TCPAddr: child.Addrs[0], UnixAddr: child.Addrs[1], KeepAddr: keepAddr, Pool: pool, ReusePool: reusePool, Progress: o.Progress,
	})
	return res, pr, err
}

// startWorker runs WorkerCommand with args and waits for its n listeners.
func (o BenchOptions) startWorker(ctx context.Context, n int, args ...string) (*Child, error) {
	argv := append(slices.Clone(o.WorkerCommand), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stderr = o.Progress
	return StartChild(ctx, cmd, n)
}

// DescribeShm says what a shared-memory directory offers, for people:
// "DIR, N MiB tmpfs, huge pages: …".
func DescribeShm(pr shm.Probe) string {
	huge := pr.HugePages
	if huge == "" {
		huge = "none (4 KiB pages)"
	}
	return fmt.Sprintf("%s, %d MiB tmpfs, huge pages: %s", pr.Dir, pr.Size>>20, huge)
}
