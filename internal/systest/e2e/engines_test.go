package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/mmgate/mmgate/tokenizer"
)

// readyWorker is one worker as /health/ready details it.
type readyWorker struct {
	URL     string `json:"url"`
	Runtime string `json:"runtime"`
	Healthy bool   `json:"healthy"`
}

func readyWorkers(t *testing.T, url string) []readyWorker {
	t.Helper()
	r, err := http.Get(url + "/health/ready")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var body struct {
		Workers []readyWorker `json:"workers"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Workers
}

// tensorCount reads mmgate_mm_tensors_total for a modality, path and
// runtime.
func tensorCount(t *testing.T, url, modality, path, runtime string) int {
	t.Helper()
	re := regexp.MustCompile(`mmgate_mm_tensors_total\{modality="` + modality + `",path="` + path + `",runtime="` + runtime + `"\} (\d+)`)
	m := re.FindStringSubmatch(metrics(t, url))
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// wantTokens is the number of tokens the reference worker generates for
// the text it answers: the text's tokens and the end-of-sequence token.
func wantTokens(t *testing.T, text string) int64 {
	t.Helper()
	tok, err := tokenizer.Load(modelDir)
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(tok.Encode(text)) + 1)
}

// twoImagesOnce sends the same two-image chat whole, streamed and whole
// again (its tensors then come from the gateway's cache) and checks what
// the worker received (per item the grid, float32 pixels equal to `mmgate
// preprocess`, the path) and what the client got: the worker's text exactly
// once, and its token count as usage.
func twoImagesOnce(t *testing.T, url, path string) {
	t.Helper()
	c := client(url)
	ctx := ctxT(t)
	photo, small := jpegFile(t, 640, 480, 11), jpegFile(t, 300, 200, 12)
	want := []string{preprocessHash(t, photo, "float32"), preprocessHash(t, small, "float32")}
	params := openai.ChatCompletionNewParams{
		Model:    "qwen3-vl",
		Messages: []openai.ChatCompletionMessageParamUnion{imageMessage("Compare these.", dataURL(t, photo), dataURL(t, small))},
	}
	resp, err := c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	text := resp.Choices[0].Message.Content
	got := items(text)
	if len(got) != 2 || got[0].sha != want[0] || got[1].sha != want[1] || got[0].dtype != "float32" || got[0].path != path || got[1].path != path {
		t.Fatalf("reply %q, want float32 via %s, sha256 %v", text, path, want)
	}
	if strings.Count(text, "image 1:") != 1 || strings.Count(text, "image 2:") != 1 || resp.Choices[0].FinishReason != "stop" {
		t.Errorf("reply %q (%s)", text, resp.Choices[0].FinishReason)
	}
	if n := wantTokens(t, text); resp.Usage.CompletionTokens != n {
		t.Errorf("usage.completion_tokens %d, the worker generated %d", resp.Usage.CompletionTokens, n)
	}
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := c.Chat.Completions.NewStreaming(ctx, params)
	var streamed strings.Builder
	var usage int64
	for stream.Next() {
		ch := stream.Current()
		for _, choice := range ch.Choices {
			streamed.WriteString(choice.Delta.Content)
		}
		if ch.Usage.CompletionTokens > 0 {
			usage = ch.Usage.CompletionTokens
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if streamed.String() != text || usage != resp.Usage.CompletionTokens {
		t.Errorf("streamed %q (usage %d), whole %q (usage %d)", streamed.String(), usage, text, resp.Usage.CompletionTokens)
	}
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{}
	again, err := c.Chat.Completions.New(ctx, params)
	if err != nil || again.Choices[0].Message.Content != text {
		t.Errorf("from the cache: %v %+v", err, again)
	}
	if !regexp.MustCompile(`mmgate_tensor_cache_hits_total [1-9]`).MatchString(metrics(t, url)) {
		t.Error("no tensor cache hit")
	}
}

// engineGateway runs a reference worker serving protocol and a gateway in
// front of it (the model files from the worker's GetTokenizer), checks that
// the gateway found the protocol, and runs twoImagesOnce: three requests,
// three tensors over path counted under the runtime.
func engineGateway(t *testing.T, protocol, path string) (shm, url, workerURL string, gateway, worker *proc) {
	t.Helper()
	shm = shmDir(t)
	workerURL, worker = startWorker(t, shm, "--protocol", protocol)
	url, gateway = startGateway(t, shm, "--worker", workerURL, "--no-model")
	if ws := readyWorkers(t, url); len(ws) != 1 || ws[0].Runtime != protocol || !ws[0].Healthy {
		t.Fatalf("ready: %+v", ws)
	}
	twoImagesOnce(t, url, path)
	if n := tensorCount(t, url, "image", path, protocol); n != 3 {
		t.Errorf("%d image tensors via %s under runtime %s, want 3 (one per request)", n, path, protocol)
	}
	return shm, url, workerURL, gateway, worker
}

// stopAll ends the gateway and then the worker with SIGTERM and checks that
// nothing is left in shared memory.
func stopAll(t *testing.T, shm string, ps ...*proc) {
	t.Helper()
	for _, p := range ps {
		if !p.Stop(20 * time.Second) {
			t.Errorf("process did not stop within 20 s of SIGTERM")
		}
	}
	if left := listShm(t, shm); len(left) != 0 {
		t.Errorf("segments left after SIGTERM: %v", left)
	}
}

// TestVLLMWorker: two images through the gateway to a worker serving vLLM's
// protocol arrive as vLLM's servicer expects them (checked by the
// reference worker's vLLM layer): one float32 tensor of both images in one
// segment, each image's pixels equal to the reference; the client gets the
// text once with the right token count; the tensors are counted under
// runtime="vllm"; nothing is left in /dev/shm after SIGTERM.
func TestVLLMWorker(t *testing.T) {
	shm, url, w, gp, wp := engineGateway(t, "vllm", "shm")
	// The same worker behind a gateway that sends tensors inline.
	inlineURL, igp := startGateway(t, shm, "--worker", w, "--no-model", "--mm-transport", "inline")
	twoImagesOnce(t, inlineURL, "inline")
	ctx := ctxT(t)
	c := client(url)
	// n and log-probabilities.
	resp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "qwen3-vl", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		N: openai.Int(2), Logprobs: openai.Bool(true), TopLogprobs: openai.Int(2), Seed: openai.Int(7),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range resp.Choices {
		if int64(len(ch.Logprobs.Content)) != wantTokens(t, ch.Message.Content) || len(ch.Logprobs.Content[0].TopLogprobs) != 2 {
			t.Errorf("choice %d: %d logprobs for %q", ch.Index, len(ch.Logprobs.Content), ch.Message.Content)
		}
	}
	if len(resp.Choices) != 2 || resp.Usage.CompletionTokens != 2*wantTokens(t, resp.Choices[0].Message.Content) {
		t.Errorf("n=2: %d choices, usage %+v", len(resp.Choices), resp.Usage)
	}
	// A video: its own request, its structural range over the timestamps.
	if _, err := exec.LookPath("ffmpeg"); err == nil {
		clip := "../../../media/video/testdata/h264_moov_end.mp4"
		text := chatRaw(t, url, videoBody(t, clip, false), 200)
		re := regexp.MustCompile(`video 1: grid \d+x\d+x\d+, float32 via shm, sha256 ` + preprocessHash(t, clip, "float32"))
		if !re.MatchString(text) {
			t.Errorf("video reply %q", text)
		}
		// Image and video in one request: vLLM carries one modality.
		if text := chatRaw(t, url, videoBody(t, clip, true), 400); !strings.Contains(text, "one modality per request") {
			t.Errorf("mixed request: %s", text)
		}
	}
	stopAll(t, shm, igp, gp, wp)
}

// TestSGLangWorker: the same through SGLang's protocol: inline tensors,
// explicit sampling values (the reference worker refuses zeros), stop
// strings left to the gateway, a seed and a video refused with a 400.
func TestSGLangWorker(t *testing.T) {
	shm, url, _, gp, wp := engineGateway(t, "sglang", "inline")
	ctx := ctxT(t)
	c := client(url)
	resp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "qwen3-vl", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		Stop: openai.ChatCompletionNewParamsStopUnion{OfStringArray: []string{"tokens,", "\n"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ch := resp.Choices[0]; ch.FinishReason != "stop" || !strings.HasPrefix(ch.Message.Content, "prompt: ") || strings.Contains(ch.Message.Content, "tokens,") {
		t.Errorf("stop strings: %q %q", ch.Message.Content, ch.FinishReason)
	}
	_, err = c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "qwen3-vl", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}, Seed: openai.Int(1),
	})
	expectStatus(t, err, 400, "invalid_request_error")
	if _, err := exec.LookPath("ffmpeg"); err == nil {
		text := chatRaw(t, url, videoBody(t, "../../../media/video/testdata/h264_moov_end.mp4", false), 400)
		if !strings.Contains(text, "sglang: [image]") {
			t.Errorf("video to SGLang: %s", text)
		}
	}
	stopAll(t, shm, gp, wp)
}

// videoBody is a chat request with the clip (and, with image set, an image
// too).
func videoBody(t *testing.T, clip string, image bool) string {
	t.Helper()
	data, err := os.ReadFile(clip)
	if err != nil {
		t.Fatal(err)
	}
	parts := `{"type": "video_url", "video_url": {"url": "data:video/mp4;base64,` + base64.StdEncoding.EncodeToString(data) + `"}}`
	if image {
		parts += `, {"type": "image_url", "image_url": {"url": "` + dataURL(t, jpegFile(t, 64, 64, 3)) + `"}}`
	}
	return `{"model": "qwen3-vl", "messages": [{"role": "user", "content": [` + parts + `, {"type": "text", "text": "What happens?"}]}]}`
}

// chatRaw posts a chat body and returns the reply's content (status 200) or
// body (other statuses), failing unless the status is want.
func chatRaw(t *testing.T, url, body string, want int) string {
	t.Helper()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
		Error struct{ Message string } `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != want {
		t.Fatalf("status %d (want %d): %v %+v", resp.StatusCode, want, err, out)
	}
	if want != 200 {
		return out.Error.Message
	}
	return out.Choices[0].Message.Content
}

// TestMixedFleet: three workers of one model, one per protocol, behind one
// gateway; one with its runtime forced in the config file. Each is found
// speaking its protocol, requests go to the workers that can carry them
// (a video never to SGLang, image and video together only to TokenSpeed),
// and the tensors are counted under each runtime.
func TestMixedFleet(t *testing.T) {
	shm := shmDir(t)
	ts, _ := startWorker(t, shm)
	vl, _ := startWorker(t, shm, "--protocol", "vllm")
	sg, _ := startWorker(t, shm, "--protocol", "sglang")
	wrong, _ := startWorker(t, shm, "--protocol", "sglang")
	cfg := t.TempDir() + "/gw.yaml"
	os.WriteFile(cfg, []byte("policy: round_robin\nworkers:\n  - url: "+ts+"\n  - url: "+vl+"\n    runtime: vllm\n  - url: "+sg+"\n  - url: "+wrong+"\n    runtime: vllm\n"), 0o600)
	url, _ := startGateway(t, shm, "--config", cfg)
	waitFor(t, func() bool {
		var runtimes []string
		for _, w := range readyWorkers(t, url) {
			if w.Healthy {
				runtimes = append(runtimes, w.Runtime)
			}
		}
		slices.Sort(runtimes)
		return slices.Equal(runtimes, []string{"sglang", "tokenspeed", "vllm"})
	}, "three healthy workers, one per runtime")
	for _, w := range readyWorkers(t, url) {
		if w.URL == wrong && (w.Healthy || w.Runtime != "") {
			t.Errorf("a SGLang worker forced to vllm: %+v", w)
		}
	}
	c := client(url)
	ctx := ctxT(t)
	photo := jpegFile(t, 320, 240, 21)
	dtypes := map[string]int{}
	for range 6 {
		resp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model: "qwen3-vl", Messages: []openai.ChatCompletionMessageParamUnion{imageMessage("x", dataURL(t, photo))},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items(resp.Choices[0].Message.Content) {
			dtypes[it.dtype+" via "+it.path]++
		}
	}
	if dtypes["bfloat16 via shm"] != 2 || dtypes["float32 via shm"] != 2 || dtypes["float32 via inline"] != 2 {
		t.Errorf("items by worker: %v", dtypes)
	}
	for _, rt := range []string{"tokenspeed", "vllm", "sglang"} {
		if tensorCount(t, url, "image", "shm", rt)+tensorCount(t, url, "image", "inline", rt) != 2 {
			t.Errorf("runtime %s: %s", rt, grep(metrics(t, url), "mmgate_mm_tensors_total"))
		}
	}
	if _, err := exec.LookPath("ffmpeg"); err == nil {
		clip := "../../../media/video/testdata/h264_moov_end.mp4"
		for range 4 {
			chatRaw(t, url, videoBody(t, clip, false), 200)
		}
		if tensorCount(t, url, "video", "inline", "sglang") != 0 || tensorCount(t, url, "video", "shm", "vllm") != 2 {
			t.Errorf("videos: %s", grep(metrics(t, url), "mmgate_mm_tensors_total"))
		}
		if text := chatRaw(t, url, videoBody(t, clip, true), 200); !strings.Contains(text, "bfloat16 via") {
			t.Errorf("image and video together: %q", text)
		}
	}
}

// TestEngineFaults, for vLLM and SGLang workers: tool calls, an Abort when
// the client goes away, and a clean error when the worker dies mid-stream.
func TestEngineFaults(t *testing.T) {
	for _, proto := range []string{"vllm", "sglang"} {
		t.Run(proto, func(t *testing.T) {
			shm := shmDir(t)
			w, wp := startWorker(t, shm, "--protocol", proto, "--token-delay", "20ms", "--reply-tool-call", weatherCall)
			url, _ := startGateway(t, shm, "--worker", w)
			c := client(url)
			ctx := ctxT(t)
			params := weatherParams()
			resp, err := c.Chat.Completions.New(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			if ch := resp.Choices[0]; ch.FinishReason != "tool_calls" || len(ch.Message.ToolCalls) != 1 || ch.Message.ToolCalls[0].Function.Name != "get_weather" {
				t.Errorf("tool call: %+v", ch)
			}
			if n := wantTokens(t, weatherCall); resp.Usage.CompletionTokens != n {
				t.Errorf("usage %d, want %d", resp.Usage.CompletionTokens, n)
			}

			cctx, cancel := context.WithCancel(ctx)
			stream := c.Chat.Completions.NewStreaming(cctx, params)
			for i := 0; i < 2 && stream.Next(); i++ {
			}
			cancel()
			stream.Close()
			waitFor(t, func() bool { return strings.Contains(wp.Stderr.String(), "msg=abort") }, "abort at the worker")

			killMidStream(t, c, params, wp)
		})
	}
}

// killMidStream kills the worker once a stream of params has started: the
// client gets a clean error event naming the worker.
func killMidStream(t *testing.T, c openai.Client, params openai.ChatCompletionNewParams, worker *proc) {
	t.Helper()
	stream := c.Chat.Completions.NewStreaming(ctxT(t), params)
	if !stream.Next() {
		t.Fatalf("no first chunk: %v", stream.Err())
	}
	worker.Kill()
	for stream.Next() {
	}
	if err := stream.Err(); err == nil || !strings.Contains(err.Error(), "worker") {
		t.Errorf("after the worker died: err = %v", err)
	}
}
