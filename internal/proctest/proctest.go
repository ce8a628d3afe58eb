// Package proctest runs the mmgate binary as separate processes for tests:
// it builds the binary once, starts gateways and workers, collects their
// stderr, stops them at the end of the test (printing their logs when the
// test failed), and gives each test a private shared-memory directory and a
// free loopback address. It is for tests only.
package proctest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Build compiles cmd/mmgate into dir and returns the binary's path.
func Build(dir string) (string, error) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	bin := filepath.Join(dir, "mmgate")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/mmgate")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building mmgate: %w", err)
	}
	return bin, nil
}

// Buffer is a concurrency-safe byte buffer (a process's stderr).
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Proc is a running process.
type Proc struct {
	Cmd    *exec.Cmd
	Stderr *Buffer
	done   chan struct{}
}

// Start runs bin with args until the test ends: then it gets SIGTERM (and
// SIGKILL after 10 s), and its stderr is logged if the test failed.
func Start(t testing.TB, bin string, args ...string) *Proc {
	t.Helper()
	p := &Proc{Cmd: exec.Command(bin, args...), Stderr: &Buffer{}, done: make(chan struct{})}
	p.Cmd.Stderr = p.Stderr
	p.Cmd.Stdout = io.Discard
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.Cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.Cmd.Process.Signal(syscall.SIGTERM)
		if !p.Wait(10 * time.Second) {
			p.Kill()
		}
		if t.Failed() {
			out := p.Stderr.String()
			if len(out) > 20000 {
				out = "…" + out[len(out)-20000:]
			}
			name := "mmgate"
			if len(args) > 0 {
				name = args[0]
			}
			t.Logf("%s stderr:\n%s", name, out)
		}
	})
	return p
}

// Alive reports whether the process is still running.
func (p *Proc) Alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Wait waits up to d for the process to end and reports whether it did.
func (p *Proc) Wait(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

// Kill ends the process with SIGKILL and waits for it.
func (p *Proc) Kill() {
	p.Cmd.Process.Kill()
	<-p.done
}

// ShmDir is a private directory on the shared-memory tmpfs (the temporary
// directory where there is none), removed at the end of the test.
func ShmDir(t testing.TB, prefix string) string {
	t.Helper()
	base := "/dev/shm"
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		base = os.TempDir()
	}
	d, err := os.MkdirTemp(base, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// FreeAddr is a loopback HOST:PORT that was free a moment ago.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
