package main

import (
	"context"
	"fmt"
)

// runTokenize is being written; until then the subcommand says so.
func runTokenize(_ context.Context, s *stdio, _ []string) int {
	fmt.Fprintln(s.err, "mmgate tokenize: not available in this build yet")
	return 2
}
