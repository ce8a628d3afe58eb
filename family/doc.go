// Package family is the seam between mmgate and the model families it
// serves. A Family is one value that owns everything family-specific: which
// models it matches, how a model folder loads, its image and video
// processors (package vision and a processor package per family), how each
// planned media item is laid out in the prompt (package prompt), which
// tensors travel to the worker and how, how the worker checks them, the
// model's output format, and the extra fields of `mmgate preprocess`.
//
// A Registry holds families in a fixed order and matches a model folder's
// config.json: every family is tried by model_type first, then every family
// by architectures; the first match wins, so the order decides between
// families that claim the same name. A model no family claims is served by
// the registry's fallback family (WithFallback; the built-in one is
// family/text) when its config.json declares no media (DeclaresMedia), and
// is otherwise refused with an *UnknownModelError naming the supported model
// types. Programs build their registry once (package family/builtin has the
// built-in list) and pass it down; there is no package-level registration.
//
// What several families share lives here: Spec (a Family described by
// values), ImageOnly and LoadImageOnly (the models of image-only families),
// LookupSpecials (media tokens looked up in the tokenizer by text), the
// patch-grid wire helpers (GridLayout, GridSideTensors, CheckGrid) and
// CheckPlanes for plane-keeping pixels.
//
// Adding a family is a package implementing Family and Model (beside its
// processor package) and one line in family/builtin.
//
// A Registry, and every Family and Model the built-in families return, are
// immutable after construction and safe for concurrent use.
package family
