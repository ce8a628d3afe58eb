package server

import (
	"context"
	"time"

	"github.com/mmgate/mmgate/openai"
)

// Backend runs chat requests. The pipeline implements it.
type Backend interface {
	// Chat starts a request. An error means nothing was generated and maps
	// to an HTTP status through apierr.
	Chat(ctx context.Context, req *openai.ChatRequest, requestID string) (openai.Generation, error)
	// Models lists the models that workers serve (Object and OwnedBy may
	// be left empty: "model" and "mmgate").
	Models() []openai.Model
	// Ready reports whether a healthy worker exists.
	Ready() bool
	// Health details for GET /health (decoders, workers, shm, ...).
	Health() map[string]any
}

// Completer runs completions. A Backend that implements it serves
// POST /v1/completions; errors map to statuses as Chat's do.
type Completer interface {
	Completion(ctx context.Context, req *openai.CompletionRequest, requestID string) (openai.Generation, error)
}

// timed is a Generation that reports its stage wall times so far, for the
// access log.
type timed interface {
	Timings() map[string]time.Duration
}

// served is a Generation that names the worker serving it, for the access
// log's worker field.
type served interface {
	Worker() string
}
