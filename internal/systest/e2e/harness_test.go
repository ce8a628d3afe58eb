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
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/demomodel"
	"github.com/mmgate/mmgate/internal/proctest"
)

var (
	binary   string // the mmgate binary built by TestMain
	modelDir string // the demo model folder
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "mmgate-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	if binary, err = proctest.Build(tmp); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if modelDir, err = demomodel.Materialize(tmp); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

type proc = proctest.Proc

// start runs the binary with args until the test ends.
func start(t *testing.T, args ...string) *proc {
	t.Helper()
	return proctest.Start(t, binary, args...)
}

// shmDir is a private directory on the shared-memory tmpfs, so that the
// test sees exactly the segments of its own processes.
func shmDir(t *testing.T) string { return proctest.ShmDir(t, "mmgate-e2e-") }

// startWorker runs `mmgate worker` on a unix socket and waits for it.
func startWorker(t *testing.T, shm string, extra ...string) (string, *proc) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "w.sock")
	args := append([]string{"worker", "--model", modelDir, "--listen", "unix://" + sock, "--shm-dir", shm}, extra...)
	p := start(t, args...)
	waitFor(t, func() bool { _, err := os.Stat(sock); return err == nil }, "worker socket")
	return "unix://" + sock, p
}

// startGateway runs `mmgate serve` on a free loopback port and waits until it
// is ready.
func startGateway(t *testing.T, shm string, extra ...string) (string, *proc) {
	t.Helper()
	addr := proctest.FreeAddr(t)
	args := []string{"serve", "--listen", addr, "--shm-dir", shm, "--health-interval", "200ms"}
	if !slices.Contains(extra, "--no-model") {
		args = append(args, "--model", modelDir)
	}
	extra = slices.DeleteFunc(slices.Clone(extra), func(s string) bool { return s == "--no-model" })
	args = append(args, extra...)
	p := start(t, args...)
	url := "http://" + addr
	waitFor(t, func() bool {
		r, err := http.Get(url + "/health/ready")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == 200
	}, "gateway ready")
	return url, p
}

func waitFor(t *testing.T, ok func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
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
	out, err := exec.Command(binary, "preprocess", "--model", modelDir, "--dtype", dtype, "--hash", path).Output()
	if err != nil {
		t.Fatalf("preprocess: %v", err)
	}
	i := strings.Index(string(out), `"sha256":"`)
	if i < 0 {
		t.Fatalf("preprocess output without sha256: %s", out)
	}
	return string(out[i+10 : i+10+64])
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
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
