package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	endianness "encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/mmgate/mmgate/internal/testutil/procs"
	"github.com/mmgate/mmgate/tokenizer/tokenizertest"
)

// familyItem is one item line of the reference worker's reply: what the
// model's family reports (shape or grid, notes), the dtype, the transport
// and the digest of the pixels it read.
var familyItem = regexp.MustCompile(`image (\d+): ((?:shape|grid) [0-9x]+), (\w+) via (\w+), sha256 ([0-9a-f]{64})(.*)`)

// preprocessLine runs `mmgate preprocess --hash` on path for the model in
// dir and dtype and returns its JSON line.
func preprocessLine(t *testing.T, dir, dtype, path string) map[string]any {
	t.Helper()
	out, err := exec.Command(binary, "preprocess", "--model", dir, "--dtype", dtype, "--hash", path).Output()
	if err != nil {
		t.Fatalf("preprocess %s: %v", path, err)
	}
	var line map[string]any
	if err := json.Unmarshal(out, &line); err != nil {
		t.Fatalf("preprocess %s: %v: %s", path, err, out)
	}
	return line
}

// head is what the worker should report first about an item that
// `mmgate preprocess` printed as line: its grid (patch-grid families) or
// its pixel_values shape.
func head(line map[string]any) string {
	dims, prefix := line["shape"].([]any), "shape "
	if g, ok := line["grid_thw"].([]any); ok {
		dims, prefix = g, "grid "
	}
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = fmt.Sprint(d)
	}
	return prefix + strings.Join(parts, "x")
}

// parts is a message's content as parts: the llava-hf templates render
// only content parts, never string content.
func parts(text string) []openai.ChatCompletionContentPartTextParam {
	return []openai.ChatCompletionContentPartTextParam{{Text: text}}
}

// familyProtocols are the engine protocols the family tests run over: the
// name and the reference worker's extra flags. vLLM and SGLang get float32
// pixels with the items stacked by the family's layout (LLaVA-NeXT's tiles
// padded to the larger image's), SGLang also each image's encoded bytes.
// Every family here takes images only, which all three carry.
func familyProtocols() []struct {
	name   string
	worker []string
} {
	return []struct {
		name   string
		worker []string
	}{{"tokenspeed", nil}, {"vllm", []string{"--protocol", "vllm"}}, {"sglang", []string{"--protocol", "sglang"}}}
}

// TestFamilies serves each model family from its fixture folder through
// the gateway to the reference worker with the official OpenAI client, over
// every protocol of familyProtocols: one image, then two images after a
// system message and a previous turn. The worker reports each item as the
// family's CheckReceived saw it; its shape or grid and its digest must be
// those of `mmgate preprocess --hash` in the worker's dtype (LLaVA-NeXT's
// images, stacked for vLLM and SGLang, padded to the larger one's tiles),
// an SGLang worker's digest of each image's encoded bytes that of the file
// sent, and the prompt the worker received must be the one `mmgate render`
// makes.
func TestFamilies(t *testing.T) {
	for _, p := range familyProtocols() {
		t.Run(p.name, func(t *testing.T) { testFamilies(t, p.name, p.worker) })
	}
}

func testFamilies(t *testing.T, protocol string, workerFlags []string) {
	photo := jpegFile(t, 640, 480, 3)
	wide := jpegFile(t, 1400, 500, 4)
	for _, tc := range []struct{ folder, name string }{
		{"gemma3", "gemma-3"}, {"llava-1.5", "llava"}, {"llava-next", "llava-next"}, {"internvl3", "internvl"}, {"glm-4.1v", "glm"},
	} {
		t.Run(tc.folder, func(t *testing.T) {
			dir := tokenizertest.ModelDir(t, tc.folder)
			shm := shmDir(t)
			w, _ := procs.Worker(t, binary, shm, append([]string{"--model", dir, "--served-model-name", tc.name}, workerFlags...)...)
			url, _ := procs.Gateway(t, binary, shm, "--model", dir, "--worker", w)
			c := client(url)
			ctx := ctxT(t)
			requests := [][]openai.ChatCompletionMessageParamUnion{
				{imageMessage("Describe this image.", dataURL(t, photo))},
				{openai.SystemMessage(parts("You compare pictures.")), imageMessage("What is it?", dataURL(t, photo)),
					openai.AssistantMessage([]openai.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion{{OfText: &openai.ChatCompletionContentPartTextParam{Text: "A gradient."}}}), imageMessage("And these two?", dataURL(t, wide), dataURL(t, photo))},
			}
			files := [][]string{{photo}, {photo, wide, photo}}
			for i, msgs := range requests {
				params := openai.ChatCompletionNewParams{Model: tc.name, Messages: msgs}
				resp, err := c.Chat.Completions.New(ctx, params)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				reply := resp.Choices[0].Message.Content
				if want := renderedPrompt(t, dir, params); !strings.HasPrefix(reply, want) {
					t.Errorf("request %d: the worker received\n%s\nwant (mmgate render) %s", i, reply, want)
				}
				checkFamilyReply(t, dir, reply, files[i])
				if protocol == "sglang" {
					checkEncoded(t, reply, files[i])
				}
				if padded := strings.Contains(reply, "padded to"); padded != (i == 1 && tc.folder == "llava-next" && protocol != "tokenspeed") {
					t.Errorf("request %d: padding reported: %v\n%s", i, padded, reply)
				}
			}
		})
	}
}

// renderedPrompt runs `mmgate render` on the request and returns the
// reference worker's line for the prompt it renders: its token count and
// the digest of its ids (little-endian uint32).
func renderedPrompt(t *testing.T, dir string, params openai.ChatCompletionNewParams) string {
	t.Helper()
	body, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "render", "--model", dir)
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("render: %v: %s", err, out)
	}
	var r struct {
		InputIDs []uint32 `json:"input_ids"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	endian := endianness.LittleEndian
	b := make([]byte, 4*len(r.InputIDs))
	for i, id := range r.InputIDs {
		endian.PutUint32(b[4*i:], id)
	}
	sum := sha256.Sum256(b)
	return fmt.Sprintf("prompt: %d tokens, sha256 %x\n", len(r.InputIDs), sum)
}

// checkFamilyReply compares the worker's item lines with `mmgate
// preprocess` of the files sent, in order.
func checkFamilyReply(t *testing.T, dir, reply string, files []string) {
	t.Helper()
	got := familyItem.FindAllStringSubmatch(reply, -1)
	if len(got) != len(files) {
		t.Fatalf("%d items in the reply for %d images:\n%s", len(got), len(files), reply)
	}
	for k, m := range got {
		want := preprocessLine(t, dir, m[3], files[k])
		if m[2] != head(want) || m[5] != want["sha256"] {
			t.Errorf("item %d: %q %s, want %q %s (mmgate preprocess --dtype %s)", k+1, m[2], m[5], head(want), want["sha256"], m[3])
		}
	}
}

// checkEncoded compares an SGLang worker's digests of the encoded image
// bytes it received with the files sent, in order.
func checkEncoded(t *testing.T, reply string, files []string) {
	t.Helper()
	got := regexp.MustCompile(`encoded \d+ bytes, sha256 ([0-9a-f]{64})`).FindAllStringSubmatch(reply, -1)
	if len(got) != len(files) {
		t.Fatalf("%d encoded digests for %d images:\n%s", len(got), len(files), reply)
	}
	for k, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if sum := fmt.Sprintf("%x", sha256.Sum256(b)); got[k][1] != sum {
			t.Errorf("item %d: encoded bytes %s, file %s", k+1, got[k][1], sum)
		}
	}
}

// textModel writes a text-only Qwen3 model folder (config.json without
// media, the Qwen3 tokenizer and its chat template).
func textModel(t *testing.T, config string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "qwen3-text")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"tokenizer.json.gz", "tokenizer_config.json"} {
		b, err := os.ReadFile(filepath.Join(tokenizertest.Qwen3Dir(), f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("gunzip", filepath.Join(dir, "tokenizer.json.gz")).CombinedOutput(); err != nil {
		t.Fatalf("gunzip: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A text-only model no family claims is served text only, with Qwen's tool
// calls parsed; an image for it is refused.
func TestTextOnlyModel(t *testing.T) {
	dir := textModel(t, `{"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"], "eos_token_id": 151645, "max_position_embeddings": 40960}`)
	shm := shmDir(t)
	w, _ := procs.Worker(t, binary, shm, "--model", dir, "--reply-tool-call", "<tool_call>\n{\"name\": \"lookup\", \"arguments\": {\"q\": \"x\"}}\n</tool_call>")
	url, _ := procs.Gateway(t, binary, shm, "--model", dir, "--worker", w)
	c := client(url)
	ctx := ctxT(t)
	resp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    "qwen3-text",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Look x up.")},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name: "lookup", Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}})},
	})
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Choices[0].Message.ToolCalls
	if len(calls) != 1 || calls[0].Function.Name != "lookup" || resp.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("reply %+v", resp.Choices[0])
	}
	_, err = c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    "qwen3-text",
		Messages: []openai.ChatCompletionMessageParamUnion{imageMessage("What is it?", dataURL(t, jpegFile(t, 64, 64, 1)))},
	})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
		t.Fatalf("image for a text model: %v", err)
	}
}

// An unknown model that declares media is refused at start, naming the
// supported model types.
func TestUnknownMediaModel(t *testing.T) {
	dir := textModel(t, `{"model_type": "idefics3", "architectures": ["Idefics3ForConditionalGeneration"], "image_token_id": 151655}`)
	out, err := exec.Command(binary, "serve", "--model", dir, "--listen", procs.FreeAddr(t), "--embedded-worker").CombinedOutput()
	if err == nil {
		t.Fatal("the gateway started")
	}
	for _, want := range []string{"idefics3", "is not supported; supported model types: qwen2_vl,", "gemma3", "llava_next", "internvl", "glm4v_moe"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A GLM-4V video through the gateway over each protocol that carries
// videos (TokenSpeed, vLLM): the worker receives its grid and the pixels
// of `mmgate preprocess`, with one run of <|video|> per temporal group
// inside the video's replacement. SGLang's protocol carries images only:
// a clear 400.
func TestGLMVideo(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is not installed")
	}
	dir := tokenizertest.ModelDir(t, "glm-4.1v")
	clip := "../../../media/video/testdata/h264_moov_end.mp4"
	data, err := os.ReadFile(clip)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"model": "glm", "messages": [{"role": "user", "content": [
		{"type": "video_url", "video_url": {"url": "data:video/mp4;base64,` + base64.StdEncoding.EncodeToString(data) + `"}},
		{"type": "text", "text": "What happens?"}]}]}`
	for _, p := range familyProtocols() {
		t.Run(p.name, func(t *testing.T) {
			shm := shmDir(t)
			w, _ := procs.Worker(t, binary, shm, append([]string{"--model", dir, "--served-model-name", "glm"}, p.worker...)...)
			url, _ := procs.Gateway(t, binary, shm, "--model", dir, "--worker", w)
			if p.name == "sglang" {
				if msg := chatRaw(t, url, body, 400); !strings.Contains(msg, "sglang: [image]") {
					t.Errorf("a video for SGLang: %s", msg)
				}
				return
			}
			c := client(url)
			resp, err := c.Chat.Completions.New(ctxT(t), openai.ChatCompletionNewParams{}, option.WithRequestBody("application/json", []byte(body)))
			if err != nil {
				t.Fatal(err)
			}
			reply := resp.Choices[0].Message.Content
			m := regexp.MustCompile(`video 1: grid (\d+x\d+x\d+), (\w+) via \w+, sha256 ([0-9a-f]{64})`).FindStringSubmatch(reply)
			if m == nil {
				t.Fatalf("reply %q", reply)
			}
			want := preprocessLine(t, dir, m[2], clip)
			if "grid "+m[1] != head(want) || m[3] != want["sha256"] {
				t.Errorf("reply %q, want %s %s", reply, head(want), want["sha256"])
			}
		})
	}
}
