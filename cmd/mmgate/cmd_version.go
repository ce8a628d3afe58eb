package main

import (
	"context"
	"encoding/json"
	"runtime"
	"runtime/debug"

	"github.com/mmgate/mmgate/media"
)

// version is the mmgate release; a build may override it with
// -ldflags "-X main.version=...".
var version = "0.1.0-dev"

type versionInfo struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	Cgo     bool   `json:"cgo"`
	// PillowExact reports whether every built-in decoder gives the
	// reference's pixels (a cgo build with libjpeg-turbo and libwebp).
	PillowExact bool                `json:"pillow_exact"`
	Decoders    []media.DecoderInfo `json:"decoders"`
	Commit      string              `json:"commit,omitempty"`
}

func runVersion(_ context.Context, s *stdio, args []string) int {
	fs := newFlagSet(s, "version", "version")
	if _, err := parseFlags(fs, args, nil); err != nil {
		return exitForParse(err)
	}
	info := versionInfo{Version: version, Go: runtime.Version(), Cgo: cgoEnabled, PillowExact: media.Exact(), Decoders: media.Decoders()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, st := range bi.Settings {
			if st.Key == "vcs.revision" {
				info.Commit = st.Value
			}
		}
	}
	return writeJSONLine(s, info)
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
