package main

import (
	"context"
	"fmt"
)

// runServe is being written; until then the subcommand says so.
func runServe(_ context.Context, s *stdio, _ []string) int {
	fmt.Fprintln(s.err, "mmgate serve: not available in this build yet")
	return 2
}
