package main

import (
	"context"
	"fmt"
)

// runBench is being written; until then the subcommand says so.
func runBench(_ context.Context, s *stdio, _ []string) int {
	fmt.Fprintln(s.err, "mmgate bench: not available in this build yet")
	return 2
}
