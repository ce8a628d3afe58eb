package vision

import (
	"fmt"
	"sort"
)

// Registry maps a config.json model_type to its Processor. It is built once
// by the program and is read-only afterwards, so it is safe for concurrent
// use.
type Registry struct {
	byType map[string]Processor
}

// NewRegistry builds a registry from processors. Two processors with the same
// ModelType, or an empty ModelType, are an error.
func NewRegistry(procs ...Processor) (*Registry, error) {
	r := &Registry{byType: make(map[string]Processor, len(procs))}
	for _, p := range procs {
		if p == nil {
			return nil, fmt.Errorf("vision: registry: nil processor: %w", ErrBadOptions)
		}
		t := p.ModelType()
		if t == "" {
			return nil, fmt.Errorf("vision: registry: empty model type: %w", ErrBadOptions)
		}
		if _, dup := r.byType[t]; dup {
			return nil, fmt.Errorf("vision: registry: model type %q registered twice: %w", t, ErrBadOptions)
		}
		r.byType[t] = p
	}
	return r, nil
}

// Lookup returns the processor for modelType, or an error wrapping
// ErrUnsupported.
func (r *Registry) Lookup(modelType string) (Processor, error) {
	if r != nil {
		if p, ok := r.byType[modelType]; ok {
			return p, nil
		}
	}
	return nil, fmt.Errorf("vision: model type %q: %w", modelType, ErrUnsupported)
}

// ModelTypes lists the registered model types in sorted order.
func (r *Registry) ModelTypes() []string {
	if r == nil {
		return []string{}
	}
	out := make([]string, 0, len(r.byType))
	for t := range r.byType {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
