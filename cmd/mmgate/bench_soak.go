package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mmgate/mmgate/internal/tools/soak"
)

// runBenchSoak is `mmgate bench soak`: it starts a gateway and reference
// workers from this binary and drives them with mixed text and image
// requests, injecting faults (soak mode) or holding a fixed concurrency
// (--load); it prints one JSON report and exits 1 when a check failed.
func runBenchSoak(ctx context.Context, s *stdio, args []string) int {
	const synopsis = "bench soak [--duration D] [--load] [--concurrency N] [--workers N] [--protocol P] [--model DIR] [flags]"
	fs := newFlagSet(s, "bench soak", synopsis)
	var cfg soak.Config
	tmpfs, cache, shmBudget, tensors := byteSize(64<<20), byteSize(32<<20), byteSize(0), byteSize(0)
	fs.DurationVar(&cfg.Duration, "duration", 60*time.Second, "traffic time")
	fs.BoolVar(&cfg.Load, "load", false, "load mode: no faults, --concurrency over --max-in-flight, latency percentiles and 429 timing")
	fs.IntVar(&cfg.Concurrency, "concurrency", 0, "clients in parallel (default 8; 64 with --load)")
	fs.IntVar(&cfg.Workers, "workers", 3, "reference worker processes")
	fs.StringVar(&cfg.Protocol, "protocol", "tokenspeed", "the workers' gRPC protocol: tokenspeed|vllm|sglang")
	fs.IntVar(&cfg.Images, "images", 6, "distinct synthetic images")
	fs.StringVar(&cfg.ModelDir, "model", "", "model folder (default: the demo model)")
	fs.Int64Var(&cfg.Seed, "seed", 1, "random seed of the request mix and the faults")
	fs.IntVar(&cfg.MaxInFlight, "max-in-flight", 0, "the gateway's --max-in-flight (default 48 with --load, else the gateway's default)")
	fs.DurationVar(&cfg.RequestTimeout, "request-timeout", 60*time.Second, "limit for each request (a request over it is a hang)")
	fs.IntVar(&cfg.CancelPercent, "cancel-percent", 15, "percent of streaming requests the client cancels mid-stream (negative: none)")
	fs.DurationVar(&cfg.KillEvery, "kill-every", 4*time.Second, "SIGKILL and restart a random worker this often (negative: never)")
	fs.IntVar(&cfg.RejectEvery, "reject-every", 11, "workers reject every Nth request with INVALID_ARGUMENT (negative: never)")
	fs.DurationVar(&cfg.FillEvery, "fill-every", 6*time.Second, "fill the private shm tmpfs for 1.5 s this often (negative: never; needs unshare -m)")
	fs.Var(&tmpfs, "tmpfs-size", "size of the private shm tmpfs mounted for the fill fault")
	fs.Var(&cache, "cache-bytes", "the gateway's tensor-cache budget")
	fs.Var(&shmBudget, "shm-budget", "the gateway's shm budget (default: half the tmpfs; 128MiB with --load)")
	fs.Var(&tensors, "max-tensor-bytes-in-flight", "the gateway's tensor memory budget (default 12MiB, 24MiB for float32 workers; the gateway's own with --load)")
	fs.DurationVar(&cfg.TokenDelay, "token-delay", 0, "workers' pause between streamed tokens (default 1ms; 0 with --load)")
	fs.String("config", "", "configuration file (YAML or JSON)")
	rest, err := parseFlags(fs, args, os.LookupEnv)
	if err != nil {
		return exitForParse(err)
	}
	if len(rest) > 0 {
		return benchFail(s, "soak", 2, "unexpected arguments", rest)
	}
	if cfg.Duration <= 0 || cfg.Workers < 1 || cfg.Images < 1 || cfg.Concurrency < 0 {
		return benchFail(s, "soak", 2, "--duration, --workers and --images must be positive")
	}
	exe, err := os.Executable()
	if err != nil {
		return benchFail(s, "soak", 1, err)
	}
	cfg.Binary, cfg.TmpfsBytes, cfg.CacheBytes, cfg.ShmBudget, cfg.TensorBudget = exe, int64(tmpfs), int64(cache), int64(shmBudget), int64(tensors)
	cfg.Log = s.err
	rep, err := soak.Run(ctx, cfg)
	if err != nil {
		return benchFail(s, "soak", 1, err)
	}
	if code := writeJSONLine(s, rep); code != 0 {
		return code
	}
	if !rep.Passed() {
		for _, f := range rep.Failures {
			fmt.Fprintln(s.err, "mmgate bench soak: FAIL:", f)
		}
		return 1
	}
	return 0
}
