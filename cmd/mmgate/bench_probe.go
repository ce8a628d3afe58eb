package main

import (
	"context"
	"fmt"

	"github.com/mmgate/mmgate/internal/tools/benchgw"
)

// benchProbeCommand is the hidden `mmgate bench` subcommand that `bench
// gateway` starts to send its text probes from a process of their own; it
// speaks benchgw's probe protocol on stdin and stdout.
const benchProbeCommand = "probe"

func runBenchProbe(ctx context.Context, s *stdio, _ []string) int {
	if err := benchgw.ServeProbe(ctx, s.in, s.out); err != nil {
		fmt.Fprintln(s.err, "mmgate bench probe:", err)
		return 1
	}
	return 0
}
