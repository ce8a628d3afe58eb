package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/testutil/procs"
)

var (
	binary   string // the mmgate binary built by TestMain
	modelDir string // the demo model folder
)

func TestMain(m *testing.M) {
	os.Exit(procs.Main(m, "mmgate-e2e-", func(bin, model string) { binary, modelDir = bin, model }))
}

type proc = procs.Proc

// start runs the binary with args until the test ends.
func start(t *testing.T, args ...string) *proc {
	t.Helper()
	return procs.Start(t, binary, args...)
}

// shmDir is a private directory on the shared-memory tmpfs, so that the
// test sees exactly the segments of its own processes.
func shmDir(t *testing.T) string { return procs.ShmDir(t, "mmgate-e2e-") }

// startWorker runs `mmgate worker` on a unix socket and waits for it.
func startWorker(t *testing.T, shm string, extra ...string) (string, *proc) {
	t.Helper()
	return procs.Worker(t, binary, shm, append([]string{"--model", modelDir}, extra...)...)
}

// startGateway runs `mmgate serve` on a free loopback port and waits until it
// is ready.
func startGateway(t *testing.T, shm string, extra ...string) (string, *proc) {
	t.Helper()
	var args []string
	if !slices.Contains(extra, "--no-model") {
		args = append(args, "--model", modelDir)
	}
	extra = slices.DeleteFunc(slices.Clone(extra), func(s string) bool { return s == "--no-model" })
	return procs.Gateway(t, binary, shm, append(args, extra...)...)
}

func waitFor(t *testing.T, ok func() bool, what string) {
	t.Helper()
	procs.WaitFor(t, nil, ok, what)
}

// jpegFile writes a w×h synthetic JPEG (gradients and bars; seed varies it).
func jpegFile(t *testing.T, w, h, seed int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x*7 + seed*31), uint8(y*5 + seed), uint8((x ^ y) + seed*3), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), fmt.Sprintf("img%d.jpg", seed))
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// preprocessHash runs `mmgate preprocess` for the demo model in dtype and
// returns the sha256 of pixel_values.
func preprocessHash(t *testing.T, path, dtype string) string {
	t.Helper()
	h, err := procs.PreprocessHash(binary, modelDir, dtype, path)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func metrics(t *testing.T, url string) string {
	t.Helper()
	r, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return string(b)
}

func listShm(t *testing.T, dir string) []string {
	t.Helper()
	out, err := procs.Segments(dir)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
