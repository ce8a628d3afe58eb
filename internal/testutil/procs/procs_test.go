package procs

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLogKeepsTheTail(t *testing.T) {
	var l Log
	chunk := strings.Repeat("x", 1<<20)
	for range 5 {
		l.Write([]byte(chunk))
	}
	l.Write([]byte("the end"))
	s := l.String()
	if len(s) > maxLog || !strings.HasSuffix(s, "the end") {
		t.Errorf("kept %d bytes ending %q", len(s), s[len(s)-10:])
	}
	if got := l.Tail(7); got != "…the end" {
		t.Errorf("Tail(7) = %q", got)
	}
	var short Log
	short.Write([]byte("abc"))
	if short.Tail(7) != "abc" {
		t.Errorf("Tail of a short log = %q", short.Tail(7))
	}
}

// sh runs a shell script as a process.
func sh(t *testing.T, script string) *Proc {
	t.Helper()
	p, err := Spawn("sh", "sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill() })
	return p
}

func TestStop(t *testing.T) {
	p := sh(t, "echo started >&2; exec sleep 30")
	if err := Poll(context.Background(), p, 10*time.Second, "started", func() bool { return strings.Contains(p.Stderr.String(), "started") }); err != nil {
		t.Fatal(err)
	}
	if !p.Alive() {
		t.Fatal("not alive")
	}
	if !p.Stop(10 * time.Second) {
		t.Error("sleep did not end on SIGTERM")
	}
	if p.Alive() || !p.Stop(time.Second) {
		t.Error("alive after Stop, or a second Stop failed")
	}

	// A process that ignores SIGTERM is killed after the grace period.
	q := sh(t, `trap "" TERM; echo ready >&2; while :; do sleep 0.05; done`)
	if err := Poll(context.Background(), q, 10*time.Second, "ready", func() bool { return strings.Contains(q.Stderr.String(), "ready") }); err != nil {
		t.Fatal(err)
	}
	if q.Stop(300 * time.Millisecond) {
		t.Error("Stop reports a graceful end for a process that ignores SIGTERM")
	}
	if q.Alive() {
		t.Error("still alive after Stop")
	}
}

func TestPoll(t *testing.T) {
	never := func() bool { return false }
	p := sh(t, "echo boom >&2; exit 3")
	err := Poll(context.Background(), p, 10*time.Second, "the socket", never)
	if err == nil || !strings.Contains(err.Error(), "sh exited while waiting for the socket") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("exited process: %v", err)
	}
	if err := Poll(context.Background(), nil, 50*time.Millisecond, "x", never); err == nil || !strings.Contains(err.Error(), "timed out waiting for x") {
		t.Errorf("timeout: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Poll(ctx, nil, time.Minute, "x", never); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	n := 0
	if err := Poll(context.Background(), nil, time.Minute, "x", func() bool { n++; return n == 3 }); err != nil || n != 3 {
		t.Errorf("third call true: %v after %d calls", err, n)
	}
}

func TestSpawnErrors(t *testing.T) {
	if _, err := Spawn("none"); err == nil {
		t.Error("empty command started")
	}
	if _, err := Spawn("missing", filepath.Join(t.TempDir(), "no-such-binary")); err == nil || !strings.Contains(err.Error(), "start missing") {
		t.Errorf("missing binary: %v", err)
	}
}

// TestStartStopsAtTheEnd: a process started for a test is stopped when the
// test ends.
func TestStartStopsAtTheEnd(t *testing.T) {
	var p *Proc
	t.Run("inner", func(t *testing.T) { p = Start(t, "/bin/sh", "-c", "exec sleep 30") })
	if p.Alive() {
		t.Error("the process outlived its test")
	}
}

func TestReadyAndAddr(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ok" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	if !Ready(srv.URL+"/ok") || Ready(srv.URL+"/busy") {
		t.Error("Ready does not follow the status")
	}
	a := FreeAddr(t)
	if Ready("http://" + a + "/") {
		t.Errorf("a free address %s answered", a)
	}
}

func TestShmDirAndSegments(t *testing.T) {
	var dir string
	t.Run("inner", func(t *testing.T) {
		dir = ShmDir(t, "mmgate-procs-test-")
		for _, n := range []string{"mmgate-a", "filler", "mmgate-b"} {
			if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		got, err := Segments(dir, "filler")
		if err != nil || !slices.Equal(got, []string{"mmgate-a", "mmgate-b"}) {
			t.Errorf("Segments = %v, %v", got, err)
		}
	})
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the directory outlived its test: %v", err)
	}
	got, err := Segments(dir)
	if err == nil || got == nil {
		t.Errorf("missing directory: %v, %v (want an error and an empty list)", got, err)
	}
}

func TestArgs(t *testing.T) {
	if got := ServeArgs("127.0.0.1:1", "/s", "--x"); !slices.Equal(got, []string{"serve", "--listen", "127.0.0.1:1", "--shm-dir", "/s", "--health-interval", "200ms", "--x"}) {
		t.Errorf("ServeArgs = %v", got)
	}
	if got := WorkerArgs("/w.sock", "/s"); !slices.Equal(got, []string{"worker", "--listen", "unix:///w.sock", "--shm-dir", "/s"}) {
		t.Errorf("WorkerArgs = %v", got)
	}
}

// TestStartCmdPipes: stdin and stdout pipes, output readable to its end
// after the process ended, stderr kept and copied to the command's own.
func TestStartCmdPipes(t *testing.T) {
	var copied Log
	cmd := exec.Command("sh", "-c", `read line; echo "got $line"; echo "to stderr" >&2; exit 3`)
	cmd.Stderr = &copied
	p, err := StartCmd("echo", cmd, Options{Stdin: true, Stdout: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(p.Stdin, "hello\n"); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := p.ExitErr(); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("ExitErr = %v, want exit status 3", err)
	}
	out, err := io.ReadAll(p.Stdout)
	p.Stdout.Close()
	if err != nil || string(out) != "got hello\n" {
		t.Errorf("stdout %q, %v", out, err)
	}
	if p.Stderr.String() != "to stderr\n" || copied.String() != "to stderr\n" {
		t.Errorf("stderr kept %q, copied %q", p.Stderr.String(), copied.String())
	}
}
