package render

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/testutil/fixture"
	"github.com/mmgate/mmgate/internal/testutil/procs"
)

var (
	binary   string // the mmgate binary built by TestMain
	modelDir string // the demo model folder (Qwen3-VL)
)

func TestMain(m *testing.M) {
	os.Exit(procs.Main(m, "mmgate-render-", func(bin, model string) { binary, modelDir = bin, model }))
}

// apiKey is the key every gateway of these tests requires.
const apiKey = "render-test-key"

// root is the module's root.
var root = fixture.Root()

// renderOnly runs `mmgate serve --render-only` for a fixture model served
// as its name, with extra flags, and returns its URL.
func renderOnly(t *testing.T, model string, extra ...string) string {
	t.Helper()
	args := append([]string{"--render-only", "--model", fixture.QwenModel(t, model), "--served-model-name", model, "--api-key", apiKey}, extra...)
	url, _ := procs.Gateway(t, binary, t.TempDir(), args...)
	return url
}

// gatewayWithWorker runs a reference worker and a gateway in front of it on
// the demo model; it returns the gateway's URL.
func gatewayWithWorker(t *testing.T) string {
	t.Helper()
	shm := procs.ShmDir(t, "mmgate-render-")
	worker, _ := procs.Worker(t, binary, shm, "--model", modelDir)
	url, _ := procs.Gateway(t, binary, shm, "--model", modelDir, "--worker", worker, "--api-key", apiKey)
	return url
}

// haveFFmpeg reports whether video cases can run (render probes videos
// with ffprobe).
func haveFFmpeg() bool {
	_, e1 := exec.LookPath("ffmpeg")
	_, e2 := exec.LookPath("ffprobe")
	return e1 == nil && e2 == nil
}

// get decodes GET url into out with the API key.
func get(t *testing.T, url string, out any) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
