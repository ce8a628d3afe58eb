// Package buildinfo describes the running binary, as `mmgate version`
// prints it: the release, the Go version, cgo, the VCS commit and the
// built-in image decoders.
package buildinfo

import (
	"runtime"
	"runtime/debug"

	"github.com/mmgate/mmgate/media"
)

// Info describes a build.
type Info struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	Cgo     bool   `json:"cgo"`
	// PillowExact reports whether every built-in decoder gives the
	// reference's pixels (a cgo build with libjpeg-turbo and libwebp).
	PillowExact bool                `json:"pillow_exact"`
	Decoders    []media.DecoderInfo `json:"decoders"`
	Commit      string              `json:"commit,omitempty"`
}

// Describe describes this binary: version is its release, cgo whether it
// was built with cgo (the main package knows both).
func Describe(version string, cgo bool) Info {
	info := Info{Version: version, Go: runtime.Version(), Cgo: cgo, PillowExact: media.Exact(), Decoders: media.Decoders()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, st := range bi.Settings {
			if st.Key == "vcs.revision" {
				info.Commit = st.Value
			}
		}
	}
	return info
}
