package main

import (
	"context"
	"encoding/json"

	"github.com/mmgate/mmgate/internal/buildinfo"
)

// version is the mmgate release; a build may override it with
// -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func runVersion(_ context.Context, s *stdio, args []string) int {
	fs := newFlagSet(s, "version", "version")
	if _, err := parseFlags(fs, args, nil); err != nil {
		return exitForParse(err)
	}
	return writeJSONLine(s, buildinfo.Describe(version, cgoEnabled))
}

// writeJSONLine prints v as one JSON line on stdout.
func writeJSONLine(s *stdio, v any) int {
	enc := json.NewEncoder(s.out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return 1
	}
	return 0
}
