// Package importrules holds, in its test, the module's dependency rules,
// checked on `go list` output (as tailscale's deptest checks its own):
// which packages may import which. The rules say how data flows and where
// a new family or engine protocol plugs in; docs/architecture.md explains
// them. The package has no code of its own.
package importrules
