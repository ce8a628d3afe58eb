package render

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// photoURL is a photo of testdata/photos as a data: URL.
func photoURL(t *testing.T, name, mime string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "testdata", "photos", name))
	if err != nil {
		t.Fatal(err)
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
}

// twoImages is a text and two-image chat request for model: a JPEG and a
// PNG photo.
func twoImages(t *testing.T, model string) []byte {
	t.Helper()
	return []byte(fmt.Sprintf(`{"model": %q, "messages": [{"role": "user", "content": [
		{"type": "text", "text": "What differs between these two pictures?"},
		{"type": "image_url", "image_url": {"url": %q}},
		{"type": "image_url", "image_url": {"url": %q}}]}]}`, model, photoURL(t, "FreshFlower.jpg", "image/jpeg"), photoURL(t, "Spring.png", "image/png")))
}

// TestRenderAPI drives one `serve --render-only` (Qwen3-VL, a context of
// 4096 tokens) through the llm-d style client on one keep-alive
// connection.
func TestRenderAPI(t *testing.T) {
	url := renderOnly(t, "qwen3-vl", "--max-model-len", "4096")
	cl := newRenderClient(url, "Bearer "+apiKey)
	for _, c := range []struct {
		name string
		run  func(*testing.T, *renderClient, string)
	}{
		{"text and two images", renderTwoImages},
		{"duplicate keys: the last wins", renderDuplicateKeys},
		{"max_tokens", renderMaxTokens},
		{"completions", renderCompletions},
		{"tokenize and detokenize", tokenizeRoundTrip},
		{"unknown model", unknownModel},
		{"render only", renderOnlyRoutes},
		{"authorization", renderAuthorization},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, cl, url) })
	}

	// Every request above went through the client's pool: one connection
	// at a time, kept alive.
	if cl.fresh.Load() != 1 || cl.reused.Load() < 20 {
		t.Errorf("%d connections dialled, %d reused: want one kept alive", cl.fresh.Load(), cl.reused.Load())
	}
}

// renderTwoImages: a text and two photos: two distinct hashes, pad-run spans,
// the same answer twice, and /tokenize of the same messages.
func renderTwoImages(t *testing.T, cl *renderClient, url string) {
	ctx := ctxT(t)
	body := twoImages(t, "qwen3-vl")
	var got generateRequest
	if err := cl.render(ctx, "/v1/chat/completions/render", body, &got); err != nil {
		t.Fatal(err)
	}
	f := got.Features
	if f == nil || len(f.MMHashes["image"]) != 2 || f.MMHashes["image"][0] == f.MMHashes["image"][1] {
		t.Fatalf("features %+v: want two distinct hashes", f)
	}
	if !reflect.DeepEqual(f.MMHashes, wantHashes(t, body)) || string(f.KwargsData) != "null" {
		t.Errorf("hashes %v, kwargs_data %s", f.MMHashes, f.KwargsData)
	}
	// Each span is one image's whole pad run, between its start and
	// end tokens; together they hold every pad of the prompt.
	pads := 0
	for i, sp := range f.MMPlaceholders["image"] {
		if !allPads(got.TokenIDs[sp.Offset:sp.Offset+sp.Length]) || got.TokenIDs[sp.Offset-1] != visionStart || got.TokenIDs[sp.Offset+sp.Length] != visionEnd {
			t.Errorf("image %d span %+v", i, sp)
		}
		pads += sp.Length
	}
	if n := bytes.Count(mustJSON(t, got.TokenIDs), []byte(fmt.Sprint(imagePad))); n != pads {
		t.Errorf("%d pads in token_ids, %d in the spans", n, pads)
	}
	// The same request rendered twice: the same ids and hashes.
	var again generateRequest
	if err := cl.render(ctx, "/v1/chat/completions/render", body, &again); err != nil || !reflect.DeepEqual(again.TokenIDs, got.TokenIDs) || !reflect.DeepEqual(again.Features.MMHashes, f.MMHashes) {
		t.Errorf("rendered again: %v", err)
	}
	// /tokenize of the same messages gives the same ids.
	var tk struct {
		Count       int      `json:"count"`
		MaxModelLen int      `json:"max_model_len"`
		Tokens      []uint32 `json:"tokens"`
	}
	if err := cl.post(ctx, "/tokenize", body, &tk); err != nil || !reflect.DeepEqual(tk.Tokens, got.TokenIDs) || tk.Count != len(got.TokenIDs) || tk.MaxModelLen != 4096 {
		t.Errorf("tokenize: %d tokens, max_model_len %d, %v", tk.Count, tk.MaxModelLen, err)
	}
}

// renderDuplicateKeys: the spliced "return_mm_kwargs": false after a true
// wins; without it vLLM's default asks for processor outputs: a 400.
func renderDuplicateKeys(t *testing.T, cl *renderClient, url string) {
	ctx := ctxT(t)
	body := twoImages(t, "qwen3-vl")
	withTrue := withField(body, `"return_mm_kwargs": true`)
	var got generateRequest
	if err := cl.render(ctx, "/v1/chat/completions/render", withTrue, &got); err != nil || string(got.Features.KwargsData) != "null" {
		t.Errorf("spliced false after true: %v", err)
	}
	// Without the splice: vLLM's default asks for processor outputs.
	var se *statusError
	if err := cl.post(ctx, "/v1/chat/completions/render", withTrue, &got); !errors.As(err, &se) || se.Status != 400 || !strings.Contains(string(se.Body), "return_mm_kwargs") {
		t.Errorf("return_mm_kwargs true: %v", err)
	}
}

// renderMaxTokens: min(max_tokens, context − prompt), never refused for the
// budget, up to a prompt one token short of the context.
func renderMaxTokens(t *testing.T, cl *renderClient, url string) {
	ctx := ctxT(t)
	text := func(extra string) []byte {
		return []byte(`{"model": "qwen3-vl", "messages": [{"role": "user", "content": "Hello there"}]` + extra + `}`)
	}
	var g generateRequest
	if err := cl.post(ctx, "/v1/chat/completions/render", text(``), &g); err != nil {
		t.Fatal(err)
	}
	n := len(g.TokenIDs)
	if g.Features != nil || g.maxTokens(t) != 4096-n {
		t.Errorf("no max_tokens: features %v, max_tokens %d, want %d", g.Features, g.maxTokens(t), 4096-n)
	}
	for _, c := range []struct {
		extra string
		want  int
	}{
		{`, "max_tokens": 7`, 7},
		{`, "max_tokens": 100000`, 4096 - n},
		{`, "max_tokens": 9, "max_completion_tokens": 5`, 5},
	} {
		if err := cl.post(ctx, "/v1/chat/completions/render", text(c.extra), &g); err != nil || g.maxTokens(t) != c.want {
			t.Errorf("%s: %d, %v; want %d", c.extra, g.maxTokens(t), err, c.want)
		}
	}
	// A prompt one token short of the context still renders with the
	// render budget; one that fills it does not.
	long := func(words int) []byte {
		return []byte(`{"model": "qwen3-vl", "max_tokens": 1, "messages": [{"role": "user", "content": "` + strings.Repeat(" a", words) + `"}]}`)
	}
	base := len(g.TokenIDs) - 2 // "Hello there" is two tokens; " a" is one
	if err := cl.post(ctx, "/v1/chat/completions/render", long(4095-base), &g); err != nil || len(g.TokenIDs) != 4095 || g.maxTokens(t) != 1 {
		t.Errorf("4095-token prompt: %d ids, %v", len(g.TokenIDs), err)
	}
	var se *statusError
	if err := cl.post(ctx, "/v1/chat/completions/render", long(4096-base), &g); !errors.As(err, &se) || se.Status != 400 {
		t.Errorf("4096-token prompt: %v, want 400", err)
	}
}

// renderCompletions: a string, strings and id lists, one answer each.
func renderCompletions(t *testing.T, cl *renderClient, url string) {
	ctx := ctxT(t)
	var list []generateRequest
	for _, c := range []struct {
		body string
		n    int
	}{
		{`{"model": "qwen3-vl", "prompt": "hello world"}`, 1},
		{`{"model": "qwen3-vl", "prompt": ["hello world", "bye"]}`, 2},
		{`{"model": "qwen3-vl", "prompt": [[9707, 1879], [151645]]}`, 2},
	} {
		if err := cl.render(ctx, "/v1/completions/render", []byte(c.body), &list); err != nil || len(list) != c.n {
			t.Fatalf("%s: %d answers, %v", c.body, len(list), err)
		}
		for i, g := range list {
			if g.Features != nil || !strings.HasPrefix(g.RequestID, "cmpl-") || i > 0 && g.RequestID == list[0].RequestID || g.maxTokens(t) != 1 {
				t.Errorf("%s: answer %d %+v", c.body, i, g)
			}
		}
	}
	if !reflect.DeepEqual(list[0].TokenIDs, []uint32{9707, 1879}) || !reflect.DeepEqual(list[1].TokenIDs, []uint32{151645}) {
		t.Errorf("id prompts not passed through: %v, %v", list[0].TokenIDs, list[1].TokenIDs)
	}
	var one []generateRequest
	if err := cl.post(ctx, "/v1/completions/render", []byte(`{"model": "qwen3-vl", "prompt": "hello world"}`), &one); err != nil || !reflect.DeepEqual(one[0].TokenIDs, []uint32{14990, 1879}) || one[0].maxTokens(t) != 16 {
		t.Errorf("completions default budget: %+v, %v", one, err)
	}
}

// tokenizeRoundTrip: detokenize(tokenize(s)) is s, exactly.
func tokenizeRoundTrip(t *testing.T, cl *renderClient, url string) {
	ctx := ctxT(t)
	for _, s := range []string{"hello world", "  two  spaces\tand a tab \n", "Ünïcödé ✓ 你好 🙂", "<|im_start|>user\nhi<|im_end|>", " don't stop", "x"} {
		var tk struct {
			Tokens      []uint32 `json:"tokens"`
			MaxModelLen int      `json:"max_model_len"`
		}
		if err := cl.post(ctx, "/tokenize", mustJSON(t, map[string]any{"model": "qwen3-vl", "prompt": s}), &tk); err != nil || tk.MaxModelLen != 4096 {
			t.Fatalf("%q: %v", s, err)
		}
		var dt struct {
			Prompt string `json:"prompt"`
		}
		if err := cl.post(ctx, "/detokenize", mustJSON(t, map[string]any{"model": "qwen3-vl", "tokens": tk.Tokens}), &dt); err != nil || dt.Prompt != s {
			t.Errorf("%q → %v → %q, %v", s, tk.Tokens, dt.Prompt, err)
		}
	}
}

// unknownModel: a 404 naming the model on every route.
func unknownModel(t *testing.T, cl *renderClient, url string) {
	ctx := ctxT(t)
	for path, body := range map[string]string{
		"/v1/chat/completions/render": `{"model": "no-such-model", "messages": [{"role": "user", "content": "hi"}]}`,
		"/v1/completions/render":      `{"model": "no-such-model", "prompt": "hi"}`,
		"/tokenize":                   `{"model": "no-such-model", "prompt": "hi"}`,
		"/detokenize":                 `{"model": "no-such-model", "tokens": [1]}`,
		"/v1/chat/completions":        `{"model": "no-such-model", "messages": [{"role": "user", "content": "hi"}]}`,
	} {
		var se *statusError
		if err := cl.post(ctx, path, []byte(body), new(any)); !errors.As(err, &se) || se.Status != 404 || !strings.Contains(string(se.Body), "no-such-model") || !strings.Contains(string(se.Body), "model_not_found") {
			t.Errorf("%s: %v", path, err)
		}
	}
}

// renderOnlyRoutes: generation answers 503; models and readiness.
func renderOnlyRoutes(t *testing.T, cl *renderClient, url string) {
	ctx := ctxT(t)
	var se *statusError
	if err := cl.post(ctx, "/v1/chat/completions", []byte(`{"model": "qwen3-vl", "messages": [{"role": "user", "content": "hi"}]}`), new(any)); !errors.As(err, &se) || se.Status != 503 {
		t.Errorf("chat on a render-only gateway: %v, want 503", err)
	}
	var models struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	if code := get(t, url+"/v1/models", &models); code != 200 || len(models.Data) != 1 || models.Data[0].ID != "qwen3-vl" || models.Data[0].MaxModelLen != 4096 {
		t.Errorf("models %d %+v", code, models)
	}
	if code := get(t, url+"/health/ready", nil); code != 200 {
		t.Errorf("ready %d", code)
	}
}

// renderAuthorization: a missing or wrong forwarded key is a 401.
func renderAuthorization(t *testing.T, cl *renderClient, url string) {
	ctx := ctxT(t)
	var se *statusError
	for _, auth := range []string{"", "Bearer wrong"} {
		bad := newRenderClient(url, auth)
		if err := bad.render(ctx, "/v1/completions/render", []byte(`{"model": "qwen3-vl", "prompt": "hi"}`), new(any)); !errors.As(err, &se) || se.Status != 401 {
			t.Errorf("%q: %v, want 401", auth, err)
		}
	}
}

// The Qwen-VL tokens around an image's pads.
const (
	visionStart = 151652
	imagePad    = 151655
	visionEnd   = 151653
)

func allPads(ids []uint32) bool {
	for _, id := range ids {
		if id != imagePad {
			return false
		}
	}
	return len(ids) > 0
}

// withField is a copy of the JSON object body with field added last.
func withField(body []byte, field string) []byte {
	end := bytes.LastIndexByte(body, '}')
	out := append([]byte(nil), body[:end]...)
	return append(append(out, ", "+field...), body[end:]...)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRenderOnGateway: the render routes on a gateway with a worker: the
// worker's context length is max_model_len, and a render's ids are the
// prompt the chat path sends the worker (its usage.prompt_tokens).
func TestRenderOnGateway(t *testing.T) {
	url := gatewayWithWorker(t)
	cl := newRenderClient(url, "Bearer "+apiKey)
	ctx := ctxT(t)
	var models struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	if code := get(t, url+"/v1/models", &models); code != 200 || len(models.Data) != 1 || models.Data[0].MaxModelLen <= 0 {
		t.Fatalf("models %d %+v", code, models)
	}
	model, maxLen := models.Data[0].ID, models.Data[0].MaxModelLen
	body := twoImages(t, model)
	var g generateRequest
	if err := cl.render(ctx, "/v1/chat/completions/render", body, &g); err != nil {
		t.Fatal(err)
	}
	if g.Features == nil || len(g.Features.MMPlaceholders["image"]) != 2 || g.maxTokens(t) != 1 {
		t.Fatalf("render %+v", g)
	}
	var plain generateRequest
	if err := cl.post(ctx, "/v1/chat/completions/render", withField(body, `"return_mm_kwargs": false`), &plain); err != nil || plain.maxTokens(t) != maxLen-len(g.TokenIDs) {
		t.Errorf("max_tokens %d, want the worker's context %d minus %d, %v", plain.maxTokens(t), maxLen, len(g.TokenIDs), err)
	}
	var chat struct {
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	withBudget := withField(body, `"max_tokens": 4`)
	if err := cl.post(ctx, "/v1/chat/completions", withBudget, &chat); err != nil || chat.Usage.PromptTokens != len(g.TokenIDs) {
		t.Errorf("chat prompt_tokens %d, render %d ids, %v", chat.Usage.PromptTokens, len(g.TokenIDs), err)
	}
	var tk struct {
		MaxModelLen int `json:"max_model_len"`
	}
	if err := cl.post(ctx, "/tokenize", []byte(`{"model": "`+model+`", "prompt": "x"}`), &tk); err != nil || tk.MaxModelLen != maxLen {
		t.Errorf("tokenize max_model_len %d, models %d, %v", tk.MaxModelLen, maxLen, err)
	}
	if code := get(t, url+"/health/ready", nil); code != http.StatusOK {
		t.Errorf("ready %d", code)
	}
}
