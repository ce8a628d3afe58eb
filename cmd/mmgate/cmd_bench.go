package main

import (
	"context"
	"fmt"
)

// runBench dispatches `mmgate bench <transport|gateway> …`.
func runBench(ctx context.Context, s *stdio, args []string) int {
	const synopsis = "usage: mmgate bench <transport|gateway|soak> [flags]\n\n" +
		"  transport  time moving tensors to a worker: inline gRPC (TCP, unix socket), shared memory, memcpy floor\n" +
		"  gateway    load-test a running gateway\n" +
		"  soak       soak-test (faults, leaks) or --load-test a gateway and reference workers started from this binary\n\n" +
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
	}
	fmt.Fprintf(s.err, "mmgate bench: unknown benchmark %q\n\n%s\n", args[0], synopsis)
	return 2
}
