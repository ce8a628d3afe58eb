// Package builtin is mmgate's list of model families: the one place that
// names them. Programs build their registry here and pass it down.
package builtin

import (
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/family/gemma3"
	"github.com/mmgate/mmgate/family/glm4v"
	"github.com/mmgate/mmgate/family/internvl"
	"github.com/mmgate/mmgate/family/llava"
	"github.com/mmgate/mmgate/family/llavanext"
	"github.com/mmgate/mmgate/family/qwenvl"
	"github.com/mmgate/mmgate/family/text"
)

// New returns a fresh registry of the built-in families, in matching order,
// with the text family as the fallback for text-only models no family
// claims. A family goes in with one line here.
//
// No two families claim the same model type or architecture today; the
// order puts the Qwen-VL families first (the gateway's first and most used
// models, Qwen3.5 among them), then the others in the order they joined.
func New() *family.Registry {
	return family.NewRegistry(
		qwenvl.Qwen2VL(),
		qwenvl.Qwen25VL(),
		qwenvl.Qwen3VL(),
		gemma3.New(),
		llava.New(),
		llavanext.New(),
		internvl.New(),
		glm4v.New(),
	).WithFallback(text.New())
}
