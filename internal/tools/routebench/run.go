package routebench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mmgate/mmgate/internal/demomodel"
	"github.com/mmgate/mmgate/internal/tools/benchgw"
	"github.com/mmgate/mmgate/internal/tools/synth"
)

// Run measures every policy of cfg in turn and returns their results, in
// cfg.Policies order.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if cfg.WorkDir == "" {
		d, err := os.MkdirTemp("", "mmgate-routebench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		cfg.WorkDir = d
	}
	if cfg.ModelDir == "" {
		d, err := demomodel.Materialize(cfg.WorkDir)
		if err != nil {
			return nil, err
		}
		cfg.ModelDir = d
	}
	images := make([]string, cfg.Conversations)
	for n := range images {
		b, err := synth.JPEG(cfg.ImageSize, cfg.ImageSize, n+1)
		if err != nil {
			return nil, err
		}
		images[n] = benchgw.DataURL("image/jpeg", b)
	}
	var out []Result
	for _, policy := range cfg.Policies {
		fmt.Fprintf(cfg.Log, "routebench: %s: %d conversations of %d turns over %d workers\n", policy, cfg.Conversations, cfg.Turns, cfg.Workers)
		r, err := runPolicy(ctx, &cfg, policy, images)
		if err != nil {
			return out, fmt.Errorf("routebench: %s: %w", policy, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// runPolicy deploys fresh workers and a gateway with policy and runs the
// conversations, cfg.Concurrency at a time.
func runPolicy(ctx context.Context, cfg *Config, policy string, images []string) (Result, error) {
	dir := filepath.Join(cfg.WorkDir, policy)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Result{}, err
	}
	d, err := deploy(ctx, cfg, policy, dir)
	if err != nil {
		return Result{}, err
	}
	defer d.stop()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Concurrency}, Timeout: 2 * time.Minute}
	model := filepath.Base(filepath.Clean(cfg.ModelDir))
	jobs := make(chan int)
	var (
		mu  sync.Mutex
		all []turn
		wg  sync.WaitGroup
	)
	t0 := time.Now()
	for range cfg.Concurrency {
		wg.Go(func() {
			for n := range jobs {
				ts := conversation(ctx, client, d.url, model, images[n], cfg.Turns, cfg.MaxTokens)
				mu.Lock()
				all = append(all, ts...)
				mu.Unlock()
			}
		})
	}
	for n := range images {
		select {
		case jobs <- n:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	r := summarize(policy, cfg, all, time.Since(t0))
	fmt.Fprintln(cfg.Log, r.row())
	return r, nil
}

// containsLine reports whether text has the line want.
func containsLine(text, want string) bool {
	for line := range strings.Lines(text) {
		if strings.TrimSuffix(line, "\n") == want {
			return true
		}
	}
	return false
}
