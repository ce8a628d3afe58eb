package e2e

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func client(url string) openai.Client {
	return openai.NewClient(option.WithBaseURL(url+"/v1/"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
}

func dataURL(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b)
}

func imageMessage(text string, urls ...string) openai.ChatCompletionMessageParamUnion {
	parts := []openai.ChatCompletionContentPartUnionParam{}
	for _, u := range urls {
		parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: u}))
	}
	parts = append(parts, openai.TextContentPart(text))
	return openai.UserMessage(parts)
}

var itemLine = regexp.MustCompile(`image (\d+): grid (\d+x\d+x\d+), (\w+) via (\w+), sha256 ([0-9a-f]{64})`)

type item struct{ grid, dtype, path, sha string }

func items(text string) []item {
	var out []item
	for _, m := range itemLine.FindAllStringSubmatch(text, -1) {
		out = append(out, item{m[2], m[3], m[4], m[5]})
	}
	return out
}

func TestTextOnly(t *testing.T) {
	shm := shmDir(t)
	w, _ := startWorker(t, shm)
	url, _ := startGateway(t, shm, "--worker", w)
	c := client(url)
	ctx := ctxT(t)

	resp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    "qwen3-vl",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Be brief."), openai.UserMessage("Hello there")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 1 || !strings.HasPrefix(resp.Choices[0].Message.Content, "prompt: ") || resp.Choices[0].FinishReason != "stop" {
		t.Fatalf("%+v", resp.Choices)
	}
	if resp.Usage.PromptTokens == 0 || resp.Usage.CompletionTokens == 0 || resp.Usage.TotalTokens != resp.Usage.PromptTokens+resp.Usage.CompletionTokens {
		t.Errorf("usage %+v", resp.Usage)
	}
	if strings.Contains(resp.Choices[0].Message.Content, "<|im_end|>") {
		t.Errorf("special token in content: %q", resp.Choices[0].Message.Content)
	}

	stream := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:         "qwen3-vl",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Be brief."), openai.UserMessage("Hello there")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	var text strings.Builder
	finish, chunks, usage := "", 0, int64(0)
	for stream.Next() {
		ch := stream.Current()
		chunks++
		for _, choice := range ch.Choices {
			text.WriteString(choice.Delta.Content)
			if choice.FinishReason != "" {
				finish = choice.FinishReason
			}
		}
		if ch.Usage.TotalTokens > 0 {
			usage = ch.Usage.TotalTokens
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if text.String() != resp.Choices[0].Message.Content || finish != "stop" || chunks < 10 || usage == 0 {
		t.Errorf("stream: %d chunks, finish %q, usage %d, text %q vs %q", chunks, finish, usage, text.String(), resp.Choices[0].Message.Content)
	}
}

// TestImagesBothTransports sends images through a shm worker and an inline
// worker and checks every fingerprint against `mmgate preprocess`.
func TestImagesBothTransports(t *testing.T) {
	shm := shmDir(t)
	w1, _ := startWorker(t, shm)
	w2, _ := startWorker(t, shm, "--served-model-name", "qwen3-vl")
	cfg := t.TempDir() + "/gw.yaml"
	os.WriteFile(cfg, []byte("policy: round_robin\nworkers:\n  - url: "+w1+"\n    mm_transport: shm\n  - url: "+w2+"\n    mm_transport: inline\n"), 0o600)
	photo := jpegFile(t, 640, 480, 1)
	small := jpegFile(t, 300, 200, 2)
	url, _ := startGateway(t, shm, "--config", cfg, "--fetch-allow-host", "127.0.0.1")
	c := client(url)
	ctx := ctxT(t)

	want := map[string]string{
		"photo": preprocessHash(t, photo, "bfloat16"),
		"small": preprocessHash(t, small, "bfloat16"),
	}
	paths := map[string]int{}
	for round := 0; round < 4; round++ {
		resp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model:    "qwen3-vl",
			Messages: []openai.ChatCompletionMessageParamUnion{imageMessage("Compare these.", dataURL(t, photo), dataURL(t, small))},
		})
		if err != nil {
			t.Fatal(err)
		}
		got := items(resp.Choices[0].Message.Content)
		if len(got) != 2 {
			t.Fatalf("reply %q", resp.Choices[0].Message.Content)
		}
		if got[0].sha != want["photo"] || got[1].sha != want["small"] || got[0].dtype != "bfloat16" {
			t.Errorf("round %d: fingerprints %+v, want %v", round, got, want)
		}
		paths[got[0].path]++
	}
	if paths["shm"] == 0 || paths["inline"] == 0 {
		t.Errorf("transport paths used: %v", paths)
	}
	m := metrics(t, url)
	for _, p := range []string{`path="shm"`, `path="inline"`} {
		if !regexp.MustCompile(`mmgate_mm_tensors_total\{[^}]*` + p + `[^}]*\} [1-9]`).MatchString(m) {
			t.Errorf("metrics lack %s:\n%s", p, grep(m, "mmgate_mm_tensors_total"))
		}
	}
	if left := listShm(t, shm); len(left) != 0 {
		t.Errorf("segments left: %v", left)
	}
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestHTTPImageNAndStop(t *testing.T) {
	shm := shmDir(t)
	w, _ := startWorker(t, shm)
	photo := jpegFile(t, 400, 300, 3)
	body, _ := os.ReadFile(photo)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "image/jpeg")
		rw.Write(body)
	}))
	defer srv.Close()
	url, _ := startGateway(t, shm, "--worker", w, "--fetch-allow-host", "127.0.0.1")
	c := client(url)
	ctx := ctxT(t)
	resp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    "qwen3-vl",
		Messages: []openai.ChatCompletionMessageParamUnion{imageMessage("What is this?", srv.URL+"/cat.jpg")},
		N:        openai.Int(2),
		Stop:     openai.ChatCompletionNewParamsStopUnion{OfString: openai.String("via")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 2 {
		t.Fatalf("n=2 gave %d choices", len(resp.Choices))
	}
	for _, ch := range resp.Choices {
		if ch.FinishReason != "stop" || !strings.HasSuffix(ch.Message.Content, "bfloat16 ") || strings.Contains(ch.Message.Content, "via") {
			t.Errorf("choice %d: %q %q", ch.Index, ch.FinishReason, ch.Message.Content)
		}
	}
	// Without the allow-list entry the same URL is refused (loopback).
	url2, _ := startGateway(t, shm, "--worker", w)
	c2 := client(url2)
	_, err = c2.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "qwen3-vl", Messages: []openai.ChatCompletionMessageParamUnion{imageMessage("x", srv.URL+"/cat.jpg")},
	})
	expectStatus(t, err, 403, "media_url_forbidden")
}

func expectStatus(t *testing.T, err error, status int, code string) {
	t.Helper()
	var ae *openai.Error
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want HTTP %d", err, status)
	}
	if ae.StatusCode != status || (code != "" && ae.Code != code) {
		t.Errorf("got %d %q (%s), want %d %q", ae.StatusCode, ae.Code, ae.Message, status, code)
	}
}

func TestRefusals(t *testing.T) {
	shm := shmDir(t)
	w, _ := startWorker(t, shm)
	redirect := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, "http://localhost:1/x.jpg", http.StatusFound)
	}))
	defer redirect.Close()
	url, _ := startGateway(t, shm, "--worker", w, "--max-body-bytes", "200000", "--fetch-allow-host", "127.0.0.1")
	c := client(url)
	ctx := ctxT(t)
	send := func(urls ...string) error {
		_, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "qwen3-vl", Messages: []openai.ChatCompletionMessageParamUnion{imageMessage("x", urls...)}})
		return err
	}
	corrupt := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString([]byte("\xff\xd8\xff\xe0 this is not a jpeg at all"))
	expectStatus(t, send(corrupt), 422, "unprocessable_media")
	for _, host := range []string{"127.0.0.2", "127.1", "2130706433", "0x7f.1", "017700000001", "[::1]", "[::ffff:127.0.0.3]", "localhost", "localhost.", "169.254.169.254", "10.1.2.3", "[fd00::1]"} {
		expectStatus(t, send("http://"+host+":9/a.jpg"), 403, "media_url_forbidden")
	}
	expectStatus(t, send("file:///etc/passwd"), 403, "media_url_forbidden")
	expectStatus(t, send("gopher://example.com/x"), 403, "media_url_forbidden")
	expectStatus(t, send(redirect.URL+"/r.jpg"), 403, "media_url_forbidden")
	big := jpegFile(t, 600, 600, 9)
	expectStatus(t, send(dataURL(t, big), dataURL(t, big), dataURL(t, big)), 413, "too_large")
	_, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "nope", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
	expectStatus(t, err, 404, "model_not_found")
	_, err = c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "qwen3-vl", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi <|image_pad|>")}})
	expectStatus(t, err, 400, "")
	// Audio: a clear 400 until audio models are supported.
	audio := `{"model": "qwen3-vl", "messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}]}]}`
	r, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(audio))
	if err != nil {
		t.Fatal(err)
	}
	var ae struct {
		Error struct{ Message string } `json:"error"`
	}
	json.NewDecoder(r.Body).Decode(&ae)
	r.Body.Close()
	if r.StatusCode != 400 || !strings.Contains(ae.Error.Message, "audio is not supported for this model") {
		t.Errorf("audio: %d %q", r.StatusCode, ae.Error.Message)
	}
	// The server is still healthy, and nothing was left in shared memory.
	if r, err := http.Get(url + "/health/ready"); err != nil || r.StatusCode != 200 {
		t.Errorf("not ready after refusals: %v", err)
	}
	if left := listShm(t, shm); len(left) != 0 {
		t.Errorf("segments left: %v", left)
	}
}

func TestWorkerFailures(t *testing.T) {
	shm := shmDir(t)
	w, wp := startWorker(t, shm, "--token-delay", "30ms")
	url, gp := startGateway(t, shm, "--worker", w, "--shm-ttl", "1s", "--shm-sweep-interval", "100ms")
	c := client(url)
	ctx := ctxT(t)
	photo := jpegFile(t, 320, 240, 5)

	// A client that goes away mid-stream: the worker sees an Abort.
	{
		cctx, cancel := contextWithCancel(ctx)
		stream := c.Chat.Completions.NewStreaming(cctx, openai.ChatCompletionNewParams{
			Model: "qwen3-vl", Messages: []openai.ChatCompletionMessageParamUnion{imageMessage("x", dataURL(t, photo))},
		}, option.WithHeader("X-Request-Id", "leaving-client"))
		for i := 0; i < 3 && stream.Next(); i++ {
		}
		cancel()
		stream.Close()
		waitFor(t, func() bool {
			return strings.Contains(wp.Stderr.String(), "leaving-client") && strings.Contains(wp.Stderr.String(), "msg=abort")
		}, "abort at the worker")
	}

	killMidStream(t, c, openai.ChatCompletionNewParams{
		Model: "qwen3-vl", Messages: []openai.ChatCompletionMessageParamUnion{imageMessage("x", dataURL(t, photo))},
	}, wp)
	// With every worker down: 503 quickly.
	waitFor(t, func() bool {
		r, err := http.Get(url + "/health/ready")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == 503
	}, "gateway to notice the dead worker")
	start := time.Now()
	_, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "qwen3-vl", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
	expectStatus(t, err, 503, "no_worker")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("503 took %v", d)
	}
	// Segments the dead worker never read are removed by the janitor.
	waitFor(t, func() bool { return len(listShm(t, shm)) == 0 }, "janitor to clear segments")
	if r, err := http.Get(url + "/health"); err != nil || r.StatusCode != 200 {
		t.Errorf("gateway unhealthy: %v", err)
	}
	_ = gp
}

// TestModelFilesFromWorker runs the gateway without --model: the tokenizer,
// template and processor files come from the worker's GetTokenizer.
func TestModelFilesFromWorker(t *testing.T) {
	shm := shmDir(t)
	w, _ := startWorker(t, shm, "--served-model-name", "demo")
	url, _ := startGateway(t, shm, "--worker", w, "--no-model")
	c := client(url)
	ctx := ctxT(t)
	photo := jpegFile(t, 256, 200, 4)
	resp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    "demo",
		Messages: []openai.ChatCompletionMessageParamUnion{imageMessage("Describe.", dataURL(t, photo))},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := items(resp.Choices[0].Message.Content)
	if len(got) != 1 || got[0].sha != preprocessHash(t, photo, "bfloat16") {
		t.Errorf("reply %q", resp.Choices[0].Message.Content)
	}
	models, err := c.Models.List(ctx)
	if err != nil || len(models.Data) != 1 || models.Data[0].ID != "demo" {
		t.Errorf("models: %+v %v", models, err)
	}
}

// TestVideo sends a video_url through the gateway: the worker receives a
// VIDEO item whose pixel_values_videos equal `mmgate preprocess` on the file.
func TestVideo(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is not installed")
	}
	shm := shmDir(t)
	w, _ := startWorker(t, shm)
	url, _ := startGateway(t, shm, "--worker", w)
	clip := "../../../media/video/testdata/h264_moov_end.mp4"
	data, err := os.ReadFile(clip)
	if err != nil {
		t.Fatal(err)
	}
	want := preprocessHash(t, clip, "bfloat16")
	body := `{"model": "qwen3-vl", "messages": [{"role": "user", "content": [
		{"type": "video_url", "video_url": {"url": "data:video/mp4;base64,` + base64.StdEncoding.EncodeToString(data) + `"}},
		{"type": "text", "text": "What happens?"}]}]}`
	text := chatRaw(t, url, body, 200)
	m := regexp.MustCompile(`video 1: grid (\d+x\d+x\d+), bfloat16 via (\w+), sha256 ([0-9a-f]{64})`).FindStringSubmatch(text)
	if m == nil || m[3] != want {
		t.Errorf("reply %q, want sha256 %s", text, want)
	}
}
