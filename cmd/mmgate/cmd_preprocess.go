package main

import (
	"context"
	"fmt"
)

// runPreprocess is being written; until then the subcommand says so.
func runPreprocess(_ context.Context, s *stdio, _ []string) int {
	fmt.Fprintln(s.err, "mmgate preprocess: not available in this build yet")
	return 2
}
