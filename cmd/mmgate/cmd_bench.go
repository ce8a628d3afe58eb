package main

import (
	"context"
	"fmt"

	"github.com/mmgate/mmgate/internal/tools/benchgw"
	"github.com/mmgate/mmgate/internal/tools/benchreport"
	"github.com/mmgate/mmgate/internal/tools/transportbench"
	"github.com/mmgate/mmgate/shm"
)

// The hidden `mmgate bench` subcommands that the benchmarks start as
// processes of their own from this binary.
const (
	// benchWorkerCommand runs the worker side of the transport benchmark.
	benchWorkerCommand = "transport-worker"
	// benchProbeCommand sends `bench gateway`'s text probes; it speaks
	// benchgw's probe protocol on stdin and stdout.
	benchProbeCommand = "probe"
)

// runBench dispatches `mmgate bench <transport|gateway> …`.
func runBench(ctx context.Context, s *stdio, args []string) int {
	const synopsis = "usage: mmgate bench <transport|gateway|soak|routing> [flags]\n\n" +
		"  transport  time moving tensors to a worker: inline gRPC (TCP, unix socket), shared memory, memcpy floor\n" +
		"  gateway    load-test a running gateway\n" +
		"  soak       soak-test (faults, leaks) or --load-test a gateway and reference workers started from this binary\n" +
		"  routing    multi-turn image conversations over reference workers: cache hits and latency per --policy\n\n" +
		"Run `mmgate bench <name> -h` for its flags."
	if len(args) == 0 {
		fmt.Fprintln(s.err, synopsis)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		fmt.Fprintln(s.out, synopsis)
		return 0
	case "transport":
		return runBenchTransport(ctx, s, args[1:])
	case benchWorkerCommand:
		return runBenchWorker(ctx, s, args[1:])
	case benchProbeCommand:
		return runBenchProbe(ctx, s, args[1:])
	case "gateway":
		return runBenchGateway(ctx, s, args[1:])
	case "soak":
		return runBenchSoak(ctx, s, args[1:])
	case "routing":
		return runBenchRouting(ctx, s, args[1:])
	}
	fmt.Fprintf(s.err, "mmgate bench: unknown benchmark %q\n\n%s\n", args[0], synopsis)
	return 2
}

// runBenchWorker is the worker process of `bench transport`: it serves until
// its stdin closes.
func runBenchWorker(ctx context.Context, s *stdio, args []string) int {
	fs := newFlagSet(s, "bench "+benchWorkerCommand, "bench "+benchWorkerCommand+" --listen ADDR [--listen ADDR] [--shm-dir DIR]")
	var listen, prefixes stringList
	fs.Var(&listen, "listen", "HOST:PORT or unix:///path (repeatable)")
	shmDir := fs.String("shm-dir", shm.DefaultDir, "shared-memory directory")
	maxMsg := fs.Int("max-msg", shm.DefaultMaxInline, "gRPC message limit in bytes")
	copyMode := fs.Bool("copy", false, "read segments with pread instead of mapping them")
	keepFiles := fs.Bool("keep-files", false, "do not unlink segments after reading them")
	fs.Var(&prefixes, "prefix", "accepted segment name prefix (repeatable; default mmgate's and SMG's)")
	if _, err := parseFlags(fs, args, nil); err != nil {
		return exitForParse(err)
	}
	ctx, cancel := transportbench.ExitOnStdinClose(ctx, s.in)
	defer cancel()
	err := transportbench.RunWorker(ctx, transportbench.WorkerConfig{
		Listen: listen, Dir: *shmDir, MaxMsg: *maxMsg, Copy: *copyMode, KeepFiles: *keepFiles, Prefixes: prefixes,
	}, s.out)
	if err != nil {
		return benchFail(s, benchWorkerCommand, 1, err)
	}
	return 0
}

func runBenchProbe(ctx context.Context, s *stdio, _ []string) int {
	if err := benchgw.ServeProbe(ctx, s.in, s.out); err != nil {
		return benchFail(s, benchProbeCommand, 1, err)
	}
	return 0
}

// saveReport finishes a benchmark's --report: it names the page written at
// path, or says why writing failed.
func saveReport(s *stdio, bench, path string, err error) int {
	if err != nil {
		return benchFail(s, bench, 1, "--report:", err)
	}
	fmt.Fprintf(s.err, "report: %s\n", path)
	return 0
}

// benchFail prints "mmgate bench NAME:" and a on stderr, as fmt.Println
// does, and returns the exit status code.
func benchFail(s *stdio, name string, code int, a ...any) int {
	fmt.Fprintln(s.err, append([]any{"mmgate bench " + name + ":"}, a...)...)
	return code
}

// reportHost describes this machine and build for a report.
func reportHost() benchreport.Host { return benchreport.ThisHost(version, cgoEnabled) }
