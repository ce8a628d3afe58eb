// Package listen opens the listeners of mmgate's servers from a --listen
// address: HOST:PORT (TCP) or unix:///path, the same for every server (the
// gateway's HTTP, the reference worker's gRPC). It has no state.
package listen

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
)

// Open opens a listener on addr: HOST:PORT, or unix:///path for a unix
// socket. A stale socket file at that path is removed first (only if it is
// a socket), and the new one is made mode 0660.
func Open(addr string) (net.Listener, error) {
	path, ok := strings.CutPrefix(addr, "unix://")
	if !ok {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, fmt.Errorf("--listen %q: want HOST:PORT or unix:///path: %w", addr, err)
		}
		return net.Listen("tcp", addr)
	}
	if path == "" || path[0] != '/' {
		return nil, fmt.Errorf("--listen %q: a unix socket needs an absolute path (unix:///path)", addr)
	}
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&fs.ModeSocket == 0 {
			return nil, fmt.Errorf("--listen %q: %s exists and is not a socket", addr, path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("--listen %q: removing stale socket: %w", addr, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--listen %q: %w", addr, err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o660); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}
