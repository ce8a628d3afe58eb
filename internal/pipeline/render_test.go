package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/internal/apierr"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/testutil/fixture"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/openai"
)

// fixtureRenderer is a Renderer of the Qwen3-VL fixture model served as
// "qwen3-vl" with the given context length.
func fixtureRenderer(t *testing.T, maxModelLen int) *Renderer {
	t.Helper()
	dir := fixture.QwenModel(t, "qwen3-vl")
	writeFile(t, dir, "generation_config.json", `{"temperature": 0.7, "top_p": 0.8, "top_k": 20}`)
	dec, err := media.New(media.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := LoadAssets(dir, AssetOptions{Families: builtin.New(), Decoder: imageprep.MediaDecoder(dec)})
	if err != nil {
		t.Fatal(err)
	}
	fetcher, err := fetch.New(fetch.Policy{Schemes: []string{"data"}}, fetch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fetcher.Close() })
	r, err := NewRenderer(a, RenderOptions{Fetcher: fetcher, Names: []string{"qwen3-vl", "alias"}, MaxModelLen: maxModelLen})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func chat(t *testing.T, fields string) *openai.ChatRequest {
	t.Helper()
	req, err := openai.ParseChat([]byte(`{"messages": [{"role": "user", "content": "Say hello to the world"}]` + fields + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func status(err error) int {
	if err == nil {
		return 200
	}
	return apierr.From(err).Status
}

// TestRenderer: names, the context length render budgets against (vLLM's
// rule: min(max_tokens, context − prompt), never refused for the budget),
// the generation config's defaults, /tokenize without any budget, and the
// generation routes answering that no worker serves.
func TestRenderer(t *testing.T) {
	ctx := context.Background()
	r := fixtureRenderer(t, 40)
	ms := r.Models()
	if len(ms) != 2 || ms[0].ID != "qwen3-vl" || ms[1].ID != "alias" || ms[0].MaxModelLen != 40 {
		t.Errorf("models %+v", ms)
	}
	g, err := r.RenderChat(ctx, chat(t, `, "model": "alias", "max_tokens": 1000`), "rid")
	if err != nil {
		t.Fatal(err)
	}
	n := len(g.TokenIDs)
	if g.RequestID != "chatcmpl-rid" || *g.Model != "alias" || *g.SamplingParams.MaxTokens != 40-n || *g.SamplingParams.TopK != 20 || g.Features != nil {
		t.Errorf("render %+v, sampling %+v", g, g.SamplingParams)
	}
	if g, err := r.RenderChat(ctx, chat(t, ``), "rid"); err != nil || g.Model != nil || *g.SamplingParams.MaxTokens != 40-n {
		t.Errorf("no model, no max_tokens: %+v, %v", g, err)
	}
	long := `, "messages": [{"role": "user", "content": "` + strings.Repeat("word ", 60) + `"}]`
	if _, err := r.RenderChat(ctx, chat(t, long), "rid"); status(err) != 400 {
		t.Errorf("a prompt over the context: %v", err)
	}
	tk, err := r.Tokenize(ctx, &openai.TokenizeRequest{Chat: chat(t, long)})
	if err != nil || tk.Count <= 40 || tk.MaxModelLen != 40 {
		t.Errorf("tokenize has no context limit: %+v, %v", tk, err)
	}
	for _, f := range []string{`, "model": "other"`} {
		if _, err := r.RenderChat(ctx, chat(t, f), "rid"); status(err) != 404 || !strings.Contains(err.Error(), `"other"`) {
			t.Errorf("%s: %v", f, err)
		}
		if _, err := r.Chat(ctx, chat(t, f), "rid"); status(err) != 404 {
			t.Errorf("chat %s: %v", f, err)
		}
	}
	if _, err := r.Chat(ctx, chat(t, ``), "rid"); status(err) != 503 {
		t.Errorf("chat on a renderer: %v, want 503", err)
	}
	comp, _ := openai.ParseCompletion([]byte(`{"prompt": "x"}`))
	if _, err := r.Completion(ctx, comp, "rid"); status(err) != 503 {
		t.Errorf("completion on a renderer: %v, want 503", err)
	}
	if !r.Ready() || r.Health()["render_only"] != true {
		t.Errorf("ready %v, health %v", r.Ready(), r.Health())
	}
}

// TestRenderRefuses: fields that change vLLM's prompt and that render does
// not apply, and processor outputs for media, are 400s naming the field.
func TestRenderRefuses(t *testing.T) {
	ctx := context.Background()
	r := fixtureRenderer(t, 0)
	image := `, "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"}}]}]`
	for _, c := range []struct{ fields, param string }{
		{`, "use_beam_search": true`, "use_beam_search"},
		{`, "truncate_prompt_tokens": 5`, "truncate_prompt_tokens"},
		{`, "chat_template": "{{ messages }}"`, "chat_template"},
		{`, "add_special_tokens": true`, "add_special_tokens"},
		{image, "return_mm_kwargs"},
		{image + `, "return_mm_kwargs": true`, "return_mm_kwargs"},
	} {
		_, err := r.RenderChat(ctx, chat(t, c.fields), "rid")
		if e := apierr.From(err); err == nil || e.Status != 400 || e.Param != c.param {
			t.Errorf("%s: %v (param %v)", c.fields, err, e.Param)
		}
	}
	if g, err := r.RenderChat(ctx, chat(t, image+`, "return_mm_kwargs": false`), "rid"); err != nil || g.Features == nil || g.Features.KwargsData != nil {
		t.Errorf("return_mm_kwargs false: %+v, %v", g, err)
	}
	if _, err := r.RenderChat(ctx, chat(t, `, "return_mm_kwargs": true`), "rid"); err != nil {
		t.Errorf("return_mm_kwargs true without media has no kwargs to give: %v", err)
	}
	comps, _ := openai.ParseCompletionBatch([]byte(`{"prompt": "x", "add_special_tokens": false}`))
	if _, err := r.RenderCompletions(ctx, comps, "rid"); apierr.From(err).Param != "add_special_tokens" {
		t.Errorf("completions add_special_tokens false: %v", err)
	}
}
