package routebench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mmgate/mmgate/internal/testutil/procs"
)

// deployment is one policy's gateway and its fresh workers.
type deployment struct {
	url     string
	shm     string
	gateway *procs.Proc
	workers []*procs.Proc
}

// deploy starts cfg.Workers reference workers and a gateway with policy
// in dir, and waits until every worker is in the gateway's rotation.
func deploy(ctx context.Context, cfg *Config, policy, dir string) (*deployment, error) {
	d := &deployment{}
	var err error
	if d.shm, err = procs.NewShmDir("mmgate-routebench-"); err != nil {
		return nil, err
	}
	addr, err := procs.LoopbackAddr()
	if err != nil {
		d.stop()
		return nil, err
	}
	gw := procs.ServeArgs(addr, d.shm, "--model", cfg.ModelDir, "--policy", policy, "--log-level", "warn")
	for i := range cfg.Workers {
		sock := filepath.Join(dir, "w"+strconv.Itoa(i)+".sock")
		args := procs.WorkerArgs(sock, d.shm, "--model", cfg.ModelDir, "--log-level", "warn")
		if cfg.PrefillRate > 0 {
			args = append(args, "--prefill-rate", strconv.FormatFloat(cfg.PrefillRate, 'g', -1, 64))
		}
		p, err := procs.Spawn("worker "+strconv.Itoa(i), append([]string{cfg.Binary}, args...)...)
		if err != nil {
			d.stop()
			return nil, err
		}
		d.workers = append(d.workers, p)
		if err := procs.Poll(ctx, p, 30*time.Second, sock, func() bool { _, err := os.Stat(sock); return err == nil }); err != nil {
			d.stop()
			return nil, err
		}
		gw = append(gw, "--worker", "unix://"+sock)
	}
	if d.gateway, err = procs.Spawn("gateway", append([]string{cfg.Binary}, gw...)...); err != nil {
		d.stop()
		return nil, err
	}
	d.url = "http://" + addr
	healthy := fmt.Sprintf(`mmgate_workers{state="healthy"} %d`, cfg.Workers)
	err = procs.Poll(ctx, d.gateway, 30*time.Second, "every worker in the rotation", func() bool {
		m, err := procs.Metrics(d.url)
		return err == nil && containsLine(m, healthy)
	})
	if err != nil {
		d.stop()
		return nil, err
	}
	return d, nil
}

func (d *deployment) stop() {
	if d.gateway != nil {
		d.gateway.Stop(15 * time.Second)
	}
	for _, w := range d.workers {
		w.Stop(10 * time.Second)
	}
	if d.shm != "" {
		os.RemoveAll(d.shm)
	}
}
