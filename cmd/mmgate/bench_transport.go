package main

import (
	"context"
	"os"
	"strings"

	"github.com/mmgate/mmgate/internal/tools/benchreport"
	"github.com/mmgate/mmgate/internal/tools/transportbench"
	"github.com/mmgate/mmgate/shm"
)

// runBenchTransport is `mmgate bench transport`: it times moving tensors of
// each size to a worker process on each path and prints a table, or one
// JSON object with --json; with --report DIR also DIR/report.json and
// DIR/index.html.
func runBenchTransport(ctx context.Context, s *stdio, args []string) int {
	fs := newFlagSet(s, "bench transport", "bench transport [--json] [--sizes 1,4,16,64,256] [--runs N] [--report DIR]")
	asJSON := fs.Bool("json", false, "print {\"results\": [...]} as JSON instead of a table")
	report := fs.String("report", "", "also write report.json and index.html (charts) into this directory")
	sizes := fs.String("sizes", "1,4,16,64,256", "tensor sizes, comma-separated, in MiB unless suffixed (B, KiB, MiB, GiB)")
	runs := fs.Int("runs", 10, "measured runs per size and path")
	warmup := fs.Int("warmup", 2, "unmeasured runs per size and path before measuring")
	paths := fs.String("paths", strings.Join(transportbench.AllPaths, ","), "paths to measure: inline-tcp, inline-unix, shm, memcpy, and shm-reuse (a pre-faulted segment refilled each run, read by a worker that keeps it)")
	shmDir := fs.String("shm-dir", shm.DefaultDir, "shared-memory directory (a tmpfs)")
	logs := addLogFlags(fs)
	if _, err := parseFlags(fs, args, os.LookupEnv); err != nil {
		return exitForParse(err)
	}
	log, err := logs.logger(s)
	if err != nil {
		return benchFail(s, "transport", 2, err)
	}
	sz, err := transportbench.ParseSizes(*sizes)
	if err != nil {
		return benchFail(s, "transport", 2, "--sizes:", err)
	}
	if *runs < 1 || *warmup < 0 {
		return benchFail(s, "transport", 2, "--runs must be ≥ 1 and --warmup ≥ 0")
	}
	pl, err := transportbench.ParsePaths(*paths)
	if err != nil {
		return benchFail(s, "transport", 2, "--paths:", err)
	}
	if *report != "" {
		if err := benchreport.PrepareDir(*report); err != nil {
			return benchFail(s, "transport", 1, "--report:", err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return benchFail(s, "transport", 1, err)
	}
	res, pr, err := transportbench.Bench(ctx, transportbench.BenchOptions{
		Sizes: sz, Paths: pl, Runs: *runs, Warmup: *warmup, ShmDir: *shmDir,
		WorkerCommand: []string{exe, "bench", benchWorkerCommand}, Logger: log, Progress: s.err,
	})
	if err != nil {
		return benchFail(s, "transport", 1, err)
	}
	if res == nil {
		res = []transportbench.Result{}
	}
	code := 0
	if *asJSON {
		code = writeJSONLine(s, map[string]any{"results": res})
	} else {
		transportbench.WriteTable(s.out, res)
	}
	if *report != "" && code == 0 {
		desc := ""
		if pr.Writable {
			desc = transportbench.DescribeShm(pr)
		}
		path, err := benchreport.SaveTransport(*report, reportHost(), benchreport.TransportParams(sz, pl, *runs, *warmup, desc), res)
		code = saveReport(s, "transport", path, err)
	}
	return code
}
