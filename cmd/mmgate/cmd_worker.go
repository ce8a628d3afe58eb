package main

import (
	"context"
	"fmt"
)

// runWorker is being written; until then the subcommand says so.
func runWorker(_ context.Context, s *stdio, _ []string) int {
	fmt.Fprintln(s.err, "mmgate worker: not available in this build yet")
	return 2
}
