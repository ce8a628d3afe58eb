// Package builtin is mmgate's list of model families: the one place that
// names them. Programs build their registry here and pass it down.
package builtin

import (
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/family/qwenvl"
)

// New returns a fresh registry of the built-in families, in matching order.
// A family goes in with one line here.
func New() *family.Registry {
	return family.NewRegistry(
		qwenvl.Qwen2VL(),
		qwenvl.Qwen25VL(),
		qwenvl.Qwen3VL(),
	)
}
