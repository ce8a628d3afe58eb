package pipeline

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/vision"
)

// This file answers: what is the front half of a request — everything up
// to the worker — and what in it differs between its callers? The gateway
// (Chat, Completion) and render (Renderer) run the same steps: model →
// assets → request checks → prompt build → media plan → render → token
// ids, pad runs, structural ranges, hashes → sampling. What differs is a
// parameter: where models come from (models), what is done with each media
// item (mediaStage) and how max_tokens meets the context length (Budget).

// Rendered is a request's front half: the prompt as a worker gets it.
type Rendered struct {
	// Model is the served model the request resolved to.
	Model  string
	Assets *Assets
	// Result is the template's output (Text), the final ids and the pad
	// runs in prompt order (one per image, one per run of a video laid out
	// in several).
	prompt.Result
	// Media are the items in prompt order as the engine takes them: content
	// hash, pad runs, structural range, pad token, side tensors, and once
	// the gateway has processed them the encoder input placed for its
	// worker.
	Media []protocol.MediaItem
	// Layouts are the items' expansions as the prompt was laid out, in
	// prompt order.
	Layouts  []prompt.Expansion
	Sampling protocol.Sampling
	output   outputMode
}

// noBudget is the budget of a front half that only counts tokens
// (/tokenize): no sampling, so no max_tokens and no context limit.
const noBudget = BudgetClamp + 1

// models is where the front half finds a request's model.
type models interface {
	// resolve returns the served model a request names (an empty name
	// means the only one), or an error (unknown: engine.ErrModelNotFound).
	resolve(name string) (string, error)
	// assetsFor returns the model's files.
	assetsFor(ctx context.Context, model string) (*Assets, error)
}

// mediaStage is what the caller does with a request's media items. Both
// stages fetch, hash and plan each item from its headers (the prober)
// before the prompt is rendered; with the rendered prompt the gateway
// admits the request by its planned bytes and picks its worker (then,
// after the front half, processes each item into that worker's
// destination: gatewayStage.process); render does nothing more. A stage
// serves one request.
type mediaStage interface {
	// begin is called once the request's media items are known (plan is
	// nil for a completion), before any is fetched: the gateway's
	// capability check.
	begin(ctx context.Context, model string, a *Assets, plan *prompt.Plan) error
	// media fetches and plans the request's items, returned in prompt
	// order. Items are worked on in parallel.
	media(ctx context.Context, a *Assets, plan *prompt.Plan, ov overrides) ([]prepared, error)
	// route is called with the rendered prompt (its ids and the items'
	// hashes) and the planned items: the gateway admits the request and
	// picks its worker here. It returns the context length to budget
	// against (0: the model's own).
	route(ctx context.Context, r *Rendered, items []prepared) (ctxLen int, err error)
	// observe records a stage's wall time.
	observe(stage string, d time.Duration)
}

// overrides are a request's processor settings (mm_processor_kwargs).
type overrides struct {
	image vision.Overrides
	video vision.VideoOverrides
}

// front is the front half with what its caller decides.
type front struct {
	models   models
	order    openai.MediaOrder // for requests that set none
	maxItems int               // media items per request (prompt.Options)
	budget   Budget
}

// model resolves the request's model and loads its files.
func (f *front) model(ctx context.Context, name string) (string, *Assets, error) {
	model, err := f.models.resolve(name)
	if err != nil {
		return "", nil, err
	}
	a, err := f.models.assetsFor(ctx, model)
	if err != nil {
		return "", nil, err
	}
	return model, a, nil
}

// chat runs the front half of a chat request with st's media stage.
func (f *front) chat(ctx context.Context, req *openai.ChatRequest, st mediaStage) (*Rendered, error) {
	model, a, err := f.model(ctx, req.Model)
	if err != nil {
		return nil, err
	}
	tmpl, err := a.Templates.Select(req.HasTools())
	if err != nil {
		return nil, err
	}
	plan, err := prompt.Build(req, prompt.Options{
		Specials:      a.Specials,
		MediaOrder:    f.order,
		StringContent: !tmpl.IteratesContentParts(),
		MaxMediaItems: f.maxItems,
		EnableVideo:   a.VideoPrep != nil,
	})
	if err != nil {
		return nil, err
	}
	ov, err := overridesOf(req, plan)
	if err != nil {
		return nil, err
	}
	if err := st.begin(ctx, model, a, plan); err != nil {
		return nil, err
	}
	items, err := st.media(ctx, a, plan, ov)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	exp := expansions(items, a)
	res, err := prompt.Render(tmpl, a.Tokenizer, a.Specials, plan, exp)
	if err != nil {
		return nil, err
	}
	st.observe("tokenize", time.Since(t0))
	r := &Rendered{Model: model, Assets: a, Result: *res, Media: mediaItems(items, res, a, exp), Layouts: exp}
	if f.budget == noBudget {
		return r, nil
	}
	ctxLen, err := st.route(ctx, r, items)
	if err != nil {
		return nil, err
	}
	if r.Sampling, err = sampling(&req.Params, len(res.IDs), orModel(ctxLen, a), a.EOS, f.budget); err != nil {
		return nil, err
	}
	r.output = outputFor(a, req, tmpl, res.Text)
	if r.output.forced, err = forcedToolChoice(req); err != nil {
		return nil, err
	}
	r.output.forced.constrain(&r.Sampling)
	return r, nil
}

// completion runs the front half of a completion: the prompt is tokenized
// with the model's tokenizer and no chat template, or taken as token ids.
func (f *front) completion(ctx context.Context, req *openai.CompletionRequest, st mediaStage) (*Rendered, error) {
	model, a, err := f.model(ctx, req.Params.Model)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	ids, text, err := completionPrompt(a, req)
	if err != nil {
		return nil, err
	}
	st.observe("tokenize", time.Since(t0))
	if err := st.begin(ctx, model, a, nil); err != nil {
		return nil, err
	}
	r := &Rendered{Model: model, Assets: a, Result: prompt.Result{Text: text, IDs: ids, Placeholders: []prompt.Placeholder{}}}
	ctxLen, err := st.route(ctx, r, nil)
	if err != nil {
		return nil, err
	}
	if r.Sampling, err = sampling(req.Params, len(ids), orModel(ctxLen, a), a.EOS, f.budget); err != nil {
		return nil, err
	}
	return r, nil
}

// completionPrompt is a completion's prompt as ids and as text.
func completionPrompt(a *Assets, req *openai.CompletionRequest) ([]uint32, string, error) {
	ids, text := req.PromptIDs, req.Prompt
	if ids == nil {
		ids = a.Tokenizer.Encode(req.Prompt)
	} else {
		limit := a.Tokenizer.MaxID()
		for i, id := range ids {
			if int(id) >= limit {
				return nil, "", openai.BadRequest("prompt", fmt.Sprintf("token id %d at position %d is outside the vocabulary (%d ids)", id, i, limit))
			}
		}
		text = a.Tokenizer.Decode(ids, false)
	}
	if len(ids) == 0 {
		return nil, "", openai.BadRequest("prompt", "the prompt has no tokens")
	}
	return ids, text, nil
}

// orModel is the context length to budget against: the stage's, else the
// model files'.
func orModel(ctxLen int, a *Assets) int {
	if ctxLen > 0 {
		return ctxLen
	}
	return a.ContextLength
}

// overridesOf reads the request's processor settings; video settings are
// checked when the request has a video.
func overridesOf(req *openai.ChatRequest, plan *prompt.Plan) (overrides, error) {
	ov := overrides{image: imageOverrides(req), video: videoOverrides(req)}
	if plan.Count(prompt.Video) > 0 {
		if err := ov.video.Validate(); err != nil {
			return ov, fmt.Errorf("mm_processor_kwargs: %w", err)
		}
	}
	return ov, nil
}

// eachItem runs f for every media item of plan in parallel and returns
// the results in prompt order. On error, out holds what the items that
// succeeded returned, for the caller to give back.
func eachItem(ctx context.Context, plan *prompt.Plan, f func(context.Context, prompt.MediaItem) (prepared, error)) (out []prepared, err error) {
	out = make([]prepared, len(plan.Media))
	if len(plan.Media) == 0 {
		return out, nil
	}
	g, gctx := errgroup.WithContext(ctx)
	for i, item := range plan.Media {
		g.Go(func() error {
			pr, err := f(gctx, item)
			if err == nil {
				out[i] = pr
			}
			return err
		})
	}
	return out, g.Wait()
}
