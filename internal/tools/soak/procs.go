package soak

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// tailBuffer keeps the last bytes a process wrote to stderr.
type tailBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if t.b.Len() > 64<<10 {
		t.b.Next(t.b.Len() - 32<<10)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}

// proc is a child process.
type proc struct {
	name   string
	cmd    *exec.Cmd
	stderr *tailBuffer
	done   chan struct{}
}

// startProc runs prefix+argv (prefix enters the shm namespace, if any).
func startProc(name string, prefix []string, argv ...string) (*proc, error) {
	all := append(append([]string(nil), prefix...), argv...)
	p := &proc{name: name, cmd: exec.Command(all[0], all[1:]...), stderr: &tailBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout = io.Discard
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("soak: start %s: %w", name, err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	return p, nil
}

func (p *proc) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// kill ends the process at once (SIGKILL), as a crash would.
func (p *proc) kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// stop asks the process to end (SIGTERM) and kills it after grace.
func (p *proc) stop(grace time.Duration) {
	if !p.alive() {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		p.kill()
	}
}

// namespace is a process holding a private mount namespace in which a small
// tmpfs is mounted on dir; children join it with nsenter.
type namespace struct {
	holder *proc
	dir    string // the mount point, as seen inside the namespace
}

// newNamespace mounts a size-byte tmpfs on dir in a new private mount
// namespace. It fails when unshare/nsenter are missing or not permitted.
func newNamespace(dir string, size int64) (*namespace, error) {
	for _, tool := range []string{"unshare", "nsenter", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%s not found", tool)
		}
	}
	script := `mount -t tmpfs -o size=` + strconv.FormatInt(size, 10) + `,mode=1777 mmgate-soak "$1" && echo ready && exec sleep 2147483647`
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr := &tailBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{name: "namespace", cmd: cmd, stderr: stderr, done: make(chan struct{})}
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- line == "ready\n"
		io.Copy(io.Discard, out)
	}()
	go func() { cmd.Wait(); close(p.done) }()
	select {
	case ok := <-ready:
		if !ok {
			p.kill()
			return nil, fmt.Errorf("private tmpfs not permitted: %s", bytes.TrimSpace([]byte(stderr.String())))
		}
	case <-time.After(10 * time.Second):
		p.kill()
		return nil, errors.New("private tmpfs: unshare did not answer")
	}
	return &namespace{holder: p, dir: dir}, nil
}

// prefix is the command prefix that runs a program inside the namespace.
func (n *namespace) prefix() []string {
	return []string{"nsenter", "-t", strconv.Itoa(n.holder.cmd.Process.Pid), "-m", "--"}
}

// hostPath is the tmpfs as this process can reach it from outside.
func (n *namespace) hostPath() string {
	return filepath.Join("/proc", strconv.Itoa(n.holder.cmd.Process.Pid), "root", n.dir)
}

func (n *namespace) close() { n.holder.kill() }

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// waitReady polls url until it answers 200 or the deadline passes.
func waitReady(ctx context.Context, p *proc, url string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		r, err := http.Get(url)
		if err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return nil
			}
		}
		if !p.alive() {
			return fmt.Errorf("soak: %s exited: %s", p.name, p.stderr.String())
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("soak: %s not ready at %s", p.name, url)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitFile(path string, p *proc, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		if !p.alive() {
			return fmt.Errorf("soak: %s exited: %s", p.name, p.stderr.String())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("soak: %s did not create %s", p.name, path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
