package video

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// maxProbeOutput bounds what is read from ffprobe's stdout.
const maxProbeOutput = 1 << 20

// tailBuffer keeps the last bytes written to it (the end of stderr, which
// holds FFmpeg's reason for failing).
type tailBuffer struct {
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	s := strings.TrimSpace(string(t.b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// command builds a child that sees the memory file as fd 3 and is killed
// when ctx ends.
func (v *Video) command(ctx context.Context, bin string, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.ExtraFiles = []*os.File{v.f}
	cmd.Env = []string{"PATH=/usr/bin:/bin", "AV_LOG_FORCE_NOCOLOR=1"}
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// runErr classifies a child's failure.
func runErr(ctx context.Context, bin string, err error, stderr *tailBuffer) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var ee *exec.Error
	if errors.As(err, &ee) || errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: %v: %w", bin, err, ErrUnavailable)
	}
	msg := stderr.String()
	if msg == "" {
		msg = err.Error()
	}
	return fmt.Errorf("%s: %s: %w", bin, msg, ErrCorrupt)
}

// run runs a child to completion and returns its stdout.
func (v *Video) run(ctx context.Context, bin string, args []string, stdin io.Reader) ([]byte, error) {
	cmd := v.command(ctx, bin, args)
	cmd.Stdin = stdin
	var out bytes.Buffer
	stderr := &tailBuffer{max: 4096}
	cmd.Stdout = &limitedWriter{w: &out, n: maxProbeOutput}
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		return nil, runErr(ctx, bin, err, stderr)
	}
	return out.Bytes(), nil
}

type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > l.n {
		return 0, fmt.Errorf("output over %d bytes: %w", maxProbeOutput, ErrCorrupt)
	}
	l.n -= len(p)
	return l.w.Write(p)
}

// readProgress reads FFmpeg's -progress output (key=value lines) to EOF
// and returns the last "frame=" value, or -1 when there was none.
func readProgress(r io.Reader) int {
	frames := -1
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "frame="); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
				frames = n
			}
		}
	}
	return frames
}
