package soak

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mmgate/mmgate/internal/testutil/procs"
)

// namespace is a process holding a private mount namespace in which a small
// tmpfs is mounted on dir; children join it with nsenter.
type namespace struct {
	holder *procs.Proc
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
	// "ready" goes to stderr, which the harness keeps, once mounted.
	script := `mount -t tmpfs -o size=` + strconv.FormatInt(size, 10) + `,mode=1777 mmgate-soak "$1" && echo ready >&2 && exec sleep 2147483647`
	p, err := procs.Spawn("namespace", "unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", dir)
	if err != nil {
		return nil, err
	}
	err = procs.Poll(context.Background(), p, 10*time.Second, "the private tmpfs", func() bool {
		return strings.Contains(p.Stderr.String(), "ready\n")
	})
	if err != nil {
		exited := !p.Alive()
		p.Kill()
		if exited {
			return nil, fmt.Errorf("private tmpfs not permitted: %s", strings.TrimSpace(p.Stderr.String()))
		}
		return nil, errors.New("private tmpfs: unshare did not answer")
	}
	return &namespace{holder: p, dir: dir}, nil
}

// prefix is the command prefix that runs a program inside the namespace.
func (n *namespace) prefix() []string {
	return []string{"nsenter", "-t", strconv.Itoa(n.holder.Pid()), "-m", "--"}
}

// hostPath is the tmpfs as this process can reach it from outside.
func (n *namespace) hostPath() string {
	return filepath.Join("/proc", strconv.Itoa(n.holder.Pid()), "root", n.dir)
}

func (n *namespace) close() { n.holder.Kill() }
