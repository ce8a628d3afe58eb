package pipeline

import (
	"context"
	"fmt"

	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/openai"
)

// Renderer renders chat requests for one loaded model with no worker
// (mmgate render): the gateway's front half, with a media stage that
// fetches each item and plans it from its headers, and max_tokens
// resolved as vLLM's render resolves it (BudgetClamp).
type Renderer struct {
	front front
	stage probeStage
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
}

// NewRenderer returns a Renderer of the model a (from LoadAssets, with a
// decoder that reads image headers: imageprep.MediaDecoder), which serves
// requests naming any model.
func NewRenderer(a *Assets, o RenderOptions) (*Renderer, error) {
	if a == nil || o.Fetcher == nil {
		return nil, fmt.Errorf("%w: assets and a Fetcher are required", ErrOptions)
	}
	return &Renderer{
		front: front{models: loaded{a}, order: o.MediaOrder, maxItems: o.MaxMediaItems, budget: BudgetClamp},
		stage: probeStage{fetcher: o.Fetcher, inlineOnly: o.InlineOnly},
	}, nil
}

// Render runs the front half of a chat request: the rendered prompt, its
// final ids and pad runs, and each media item's hash and ranges.
func (r *Renderer) Render(ctx context.Context, req *openai.ChatRequest) (*Rendered, error) {
	return r.front.chat(ctx, req, r.stage)
}

// loaded is one model already loaded, whatever name a request gives.
type loaded struct{ a *Assets }

func (l loaded) resolve(name string) (string, error)                { return name, nil }
func (l loaded) assetsFor(context.Context, string) (*Assets, error) { return l.a, nil }
