package main

import (
	"context"
	"fmt"
)

// runRender is being written; until then the subcommand says so.
func runRender(_ context.Context, s *stdio, _ []string) int {
	fmt.Fprintln(s.err, "mmgate render: not available in this build yet")
	return 2
}
