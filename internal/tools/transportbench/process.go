package transportbench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mmgate/mmgate/engine/tokenspeed/tensordata"
	"github.com/mmgate/mmgate/internal/testutil/procs"
	"github.com/mmgate/mmgate/shm"
)

// WorkerConfig configures RunWorker, the worker side run in its own process.
type WorkerConfig struct {
	Listen    []string // "HOST:PORT" or "unix:///path"; at least one
	Dir       string   // shared-memory directory ("" = /dev/shm)
	Prefixes  []string // accepted producer prefixes (nil = defaults)
	KeepFiles bool     // do not unlink segments after reading
	Copy      bool     // read segments with pread instead of mapping them
	Digest    Digest
	MaxMsg    int // gRPC message limit; 0 = 256 MiB
}

// readyPrefix starts each line RunWorker prints once a listener is open.
const readyPrefix = "listening "

// RunWorker serves Server on every address in cfg.Listen until ctx ends. For
// each listener it prints "listening <url>" on ready, so the parent process
// learns the chosen ports.
func RunWorker(ctx context.Context, cfg WorkerConfig, ready io.Writer) error {
	if len(cfg.Listen) == 0 {
		return errors.New("worker: no listen address")
	}
	if cfg.MaxMsg == 0 {
		cfg.MaxMsg = shm.DefaultMaxInline
	}
	rd, err := shm.NewReader(shm.ReaderOptions{Dir: cfg.Dir, Prefixes: cfg.Prefixes, KeepFiles: cfg.KeepFiles, Copy: cfg.Copy})
	if err != nil {
		return err
	}
	defer rd.Close()
	g := NewGRPCServer(&Server{Reader: tensordata.Reader{Reader: rd}, Digest: cfg.Digest}, cfg.MaxMsg)
	eg, ctx := errgroup.WithContext(ctx)
	for _, a := range cfg.Listen {
		l, err := Listen(a)
		if err != nil {
			g.Stop()
			return fmt.Errorf("worker: %w", err)
		}
		fmt.Fprintf(ready, "%s%s\n", readyPrefix, ListenerURL(l))
		eg.Go(func() error { return g.Serve(l) })
	}
	eg.Go(func() error {
		<-ctx.Done()
		g.Stop()
		return nil
	})
	return eg.Wait()
}

// Child is a worker process started by StartChild.
type Child struct {
	Addrs []string // in the order of the listen addresses
	p     *procs.Proc
}

// StartChild starts cmd (a process that calls RunWorker with n listen
// addresses and exits when its stdin closes) and waits for its n "listening"
// lines.
func StartChild(ctx context.Context, cmd *exec.Cmd, n int) (*Child, error) {
	p, err := procs.StartCmd("worker", cmd, procs.Options{Stdin: true, Stdout: true})
	if err != nil {
		return nil, err
	}
	c := &Child{p: p}
	lines := make(chan string)
	go func() {
		defer p.Stdout.Close()
		sc := bufio.NewScanner(p.Stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), readyPrefix); ok {
				lines <- a
			}
		}
		close(lines)
	}()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for len(c.Addrs) < n {
		select {
		case a, ok := <-lines:
			if !ok {
				return nil, fmt.Errorf("worker exited before listening: %v", p.ExitErr())
			}
			c.Addrs = append(c.Addrs, a)
		case <-timeout.C:
			c.Stop()
			return nil, errors.New("worker did not start listening within 30 s")
		case <-ctx.Done():
			c.Stop()
			return nil, ctx.Err()
		}
	}
	go func() {
		for range lines {
		}
	}()
	return c, nil
}

// Stop closes the child's stdin (asking it to exit), kills it after 5 s,
// and waits for it.
func (c *Child) Stop() error {
	_ = c.p.Stdin.Close()
	if !c.p.Wait(5 * time.Second) {
		c.p.Kill()
	}
	return c.p.ExitErr()
}

// ExitOnStdinClose returns a context that ends when r (the child's stdin)
// reaches EOF, so an orphaned worker never outlives its parent.
func ExitOnStdinClose(ctx context.Context, r io.Reader) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		_, _ = io.Copy(io.Discard, r)
		cancel()
	}()
	return ctx, cancel
}
