package procs

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// maxLog bounds what a Log keeps: a soak's processes run for minutes and
// only the end of their output explains a failure.
const maxLog = 4 << 20

// Log is a concurrency-safe writer that keeps the last 4 MiB written to it
// (a process's stderr).
type Log struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	if l.b.Len() > maxLog {
		l.b.Next(l.b.Len() - maxLog/2)
	}
	return len(p), nil
}

// String is everything kept.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Tail is the last n bytes kept, with a leading "…" when cut.
func (l *Log) Tail(n int) string {
	s := l.String()
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// Proc is a running process: its command, its stderr, the pipes asked for
// and whether it ended.
type Proc struct {
	Name   string
	Cmd    *exec.Cmd
	Stderr *Log
	// Stdin is a pipe to the process's standard input (Options.Stdin);
	// closing it is how some children are asked to end.
	Stdin io.WriteCloser
	// Stdout is the read end of a pipe from the process's standard output
	// (Options.Stdout), readable to its end after the process ended; the
	// caller closes it.
	Stdout io.ReadCloser

	done chan struct{}
	err  error // what Cmd.Wait returned, once done is closed
}

// Options says which pipes StartCmd opens to a process.
type Options struct {
	Stdin, Stdout bool
}

// Spawn starts argv (argv[0] is looked up on PATH when it has no slash),
// with stdout discarded and stderr kept in Proc.Stderr.
func Spawn(name string, argv ...string) (*Proc, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("start %s: empty command", name)
	}
	return StartCmd(name, exec.Command(argv[0], argv[1:]...), Options{})
}

// StartCmd starts cmd, prepared by the caller (arguments, environment,
// context, WaitDelay), with the pipes o asks for. Its standard error is
// kept in Proc.Stderr and also written to cmd.Stderr when that is set.
func StartCmd(name string, cmd *exec.Cmd, o Options) (*Proc, error) {
	p := &Proc{Name: name, Cmd: cmd, Stderr: &Log{}, done: make(chan struct{})}
	if cmd.Stderr != nil {
		cmd.Stderr = io.MultiWriter(cmd.Stderr, p.Stderr)
	} else {
		cmd.Stderr = p.Stderr
	}
	var err error
	if o.Stdin {
		if p.Stdin, err = cmd.StdinPipe(); err != nil {
			return nil, fmt.Errorf("start %s: %w", name, err)
		}
	}
	// An os.Pipe rather than cmd.StdoutPipe: Wait, which runs at once
	// below, would close the latter while output is still unread.
	var w *os.File
	if o.Stdout {
		var r *os.File
		if r, w, err = os.Pipe(); err != nil {
			return nil, fmt.Errorf("start %s: %w", name, err)
		}
		p.Stdout, cmd.Stdout = r, w
	}
	err = cmd.Start()
	if w != nil {
		w.Close() // the child has its copy
	}
	if err != nil {
		if p.Stdout != nil {
			p.Stdout.Close()
		}
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// Pid is the process id.
func (p *Proc) Pid() int { return p.Cmd.Process.Pid }

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
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// ExitErr waits for the process to end and returns what exec.Cmd.Wait
// returned (nil after a zero exit status).
func (p *Proc) ExitErr() error {
	<-p.done
	return p.err
}

// Kill ends the process with SIGKILL, as a crash would, and waits for it.
func (p *Proc) Kill() {
	p.Cmd.Process.Kill()
	<-p.done
}

// Stop asks the process to end (SIGTERM) and kills it when it has not ended
// after grace; it reports whether the process ended within grace.
func (p *Proc) Stop(grace time.Duration) bool {
	if !p.Alive() {
		return true
	}
	p.Cmd.Process.Signal(syscall.SIGTERM)
	if p.Wait(grace) {
		return true
	}
	p.Kill()
	return false
}

// T is the part of testing.TB the helpers use.
type T interface {
	Helper()
	Cleanup(func())
	Failed() bool
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
	TempDir() string
}

// Start runs bin with args until the test ends: then it is stopped (SIGTERM,
// SIGKILL after 10 s) and, when the test failed, the last 20,000 bytes of
// its stderr are logged.
func Start(t T, bin string, args ...string) *Proc {
	t.Helper()
	name := "mmgate"
	if len(args) > 0 {
		name = args[0]
	}
	p, err := Spawn(name, append([]string{bin}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop(10 * time.Second)
		if t.Failed() {
			t.Logf("%s stderr:\n%s", name, p.Stderr.Tail(20000))
		}
	})
	return p
}
