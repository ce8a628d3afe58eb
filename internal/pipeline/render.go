package pipeline

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/openai"
)

// Renderer renders requests for one loaded model with no worker: the
// gateway's front half, with a media stage that fetches each item and
// plans it from its headers, and max_tokens resolved as vLLM's render
// resolves it (BudgetClamp). It serves `mmgate render` and, as the HTTP
// server's Backend, `mmgate serve --render-only`: the render API, the
// model list and health; the routes that generate answer that no worker
// serves.
type Renderer struct {
	renderAPI
	assets  *Assets
	names   []string
	created time.Time
}

// RenderOptions configure a Renderer. Fetcher is required.
type RenderOptions struct {
	Fetcher *fetch.Fetcher
	// InlineOnly refuses media that is not a data: URL before fetching it
	// (a command that must not reach the network).
	InlineOnly bool
	// MediaOrder is the default for requests that set none.
	MediaOrder openai.MediaOrder
	// MaxMediaItems per request (default 16).
	MaxMediaItems int
	// Names are the served model names; a request naming another model is
	// not found. Empty: any name is the model (mmgate render).
	Names []string
	// MaxModelLen is the context length to budget against (vLLM's
	// --max-model-len); 0: the model's own.
	MaxModelLen int
	// Heavy, when set, runs each media item's CPU work on its
	// low-priority threads (see Options.Heavy).
	Heavy *cpupool.Pool
}

// NewRenderer returns a Renderer of the model a (from LoadAssets, with a
// decoder that reads image headers: imageprep.MediaDecoder).
func NewRenderer(a *Assets, o RenderOptions) (*Renderer, error) {
	if a == nil || o.Fetcher == nil {
		return nil, fmt.Errorf("%w: assets and a Fetcher are required", ErrOptions)
	}
	if o.MaxModelLen < 0 {
		return nil, fmt.Errorf("%w: MaxModelLen %d", ErrOptions, o.MaxModelLen)
	}
	f := front{models: loaded{a: a, names: o.Names}, order: o.MediaOrder, maxItems: o.MaxMediaItems}
	ctxLen := o.MaxModelLen
	st := probeStage{fetcher: o.Fetcher, inlineOnly: o.InlineOnly, heavy: o.Heavy, contextLen: func(string) int { return ctxLen }}
	return &Renderer{renderAPI: newRenderAPI(f, st), assets: a, names: slices.Clone(o.Names), created: time.Now()}, nil
}

// Render runs the front half of a chat request: the rendered prompt, its
// final ids and pad runs, and each media item's hash and ranges.
func (r *Renderer) Render(ctx context.Context, req *openai.ChatRequest) (*Rendered, error) {
	return r.render.chat(ctx, req, r.stage)
}

// errRenderOnly is the answer of the routes that need a worker.
var errRenderOnly = fmt.Errorf("pipeline: this gateway only renders (no workers): %w", engine.ErrNoWorker)

// Chat answers that no worker serves (503): a Renderer only renders.
func (r *Renderer) Chat(ctx context.Context, req *openai.ChatRequest, _ string) (openai.Generation, error) {
	if _, err := r.render.models.resolve(req.Model); err != nil {
		return nil, err
	}
	return nil, errRenderOnly
}

// Completion answers that no worker serves (503).
func (r *Renderer) Completion(ctx context.Context, req *openai.CompletionRequest, _ string) (openai.Generation, error) {
	if _, err := r.render.models.resolve(req.Params.Model); err != nil {
		return nil, err
	}
	return nil, errRenderOnly
}

// Models lists the served names with the model's context length.
func (r *Renderer) Models() []openai.Model {
	out := make([]openai.Model, len(r.names))
	n := r.maxModelLen("", r.assets)
	for i, name := range r.names {
		out[i] = openai.Model{ID: name, Object: "model", Created: r.created.Unix(), OwnedBy: "mmgate", MaxModelLen: n}
	}
	return out
}

// Ready reports true: the model is loaded, the render API serves.
func (r *Renderer) Ready() bool { return true }

// Health details for /health.
func (r *Renderer) Health() map[string]any {
	return map[string]any{"render_only": true, "models": slices.Clone(r.names), "model_dir": r.assets.Dir, "video": r.assets.VideoPrep != nil}
}

// loaded is one model already loaded. With names, a request names one of
// them (none: the first); without, any name is the model.
type loaded struct {
	a     *Assets
	names []string
}

func (l loaded) resolve(name string) (string, error) {
	switch {
	case len(l.names) == 0 || slices.Contains(l.names, name):
		return name, nil
	case name == "":
		return l.names[0], nil
	}
	return "", fmt.Errorf("pipeline: model %q: %w", clip(name, 128), engine.ErrModelNotFound)
}

func (l loaded) assetsFor(context.Context, string) (*Assets, error) { return l.a, nil }
