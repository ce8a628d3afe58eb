package procs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mmgate/mmgate/internal/demomodel"
)

// Build compiles cmd/mmgate into dir and returns the binary's path.
func Build(dir string) (string, error) {
	// Run go from this file's directory: inside the module wherever the
	// caller runs.
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(dir, "mmgate")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/mmgate/mmgate/cmd/mmgate")
	cmd.Dir = filepath.Dir(file)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building mmgate: %w", err)
	}
	return bin, nil
}

// M is the part of testing.M that Main uses.
type M interface{ Run() int }

// Main is the body of a TestMain that runs mmgate processes: it builds the
// binary and materializes the demo model once, in a temporary directory
// named after prefix, hands both paths to ready, runs the tests and removes
// the directory. It returns the exit code for os.Exit.
func Main(m M, prefix string, ready func(bin, modelDir string)) int {
	tmp, err := os.MkdirTemp("", prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	bin, err := Build(tmp)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	model, err := demomodel.Materialize(tmp)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ready(bin, model)
	return m.Run()
}

// ServeArgs is the command line of a gateway listening on addr with its
// segments in shm and a 200 ms health check, plus extra.
func ServeArgs(addr, shm string, extra ...string) []string {
	return append([]string{"serve", "--listen", addr, "--shm-dir", shm, "--health-interval", "200ms"}, extra...)
}

// WorkerArgs is the command line of a reference worker listening on the
// unix socket sock and reading segments from shm, plus extra.
func WorkerArgs(sock, shm string, extra ...string) []string {
	return append([]string{"worker", "--listen", "unix://" + sock, "--shm-dir", shm}, extra...)
}

// Gateway runs `mmgate serve` (ServeArgs on a free loopback port) until the
// test ends and waits until it is ready; it returns the base URL.
func Gateway(t T, bin, shm string, extra ...string) (string, *Proc) {
	t.Helper()
	addr := FreeAddr(t)
	p := Start(t, bin, ServeArgs(addr, shm, extra...)...)
	url := "http://" + addr
	WaitFor(t, p, func() bool { return Ready(url + "/health/ready") }, "gateway ready")
	return url, p
}

// Worker runs `mmgate worker` (WorkerArgs on a socket in the test's
// temporary directory) until the test ends and waits for its socket; it
// returns the worker's URL.
func Worker(t T, bin, shm string, extra ...string) (string, *Proc) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "w.sock")
	p := Start(t, bin, WorkerArgs(sock, shm, extra...)...)
	WaitFor(t, p, func() bool { _, err := os.Stat(sock); return err == nil }, "worker socket")
	return "unix://" + sock, p
}

// PreprocessHash runs `mmgate preprocess --hash` on the image at path for
// the model in modelDir and dtype, and returns the sha256 of its
// pixel_values: the fingerprint the reference worker reports.
func PreprocessHash(bin, modelDir, dtype, path string) (string, error) {
	out, err := exec.Command(bin, "preprocess", "--model", modelDir, "--dtype", dtype, "--hash", path).Output()
	if err != nil {
		return "", fmt.Errorf("mmgate preprocess %s: %w", path, err)
	}
	i := strings.Index(string(out), `"sha256":"`)
	if i < 0 || len(out) < i+10+64 {
		return "", fmt.Errorf("preprocess output without sha256: %s", out)
	}
	return string(out[i+10 : i+10+64]), nil
}
