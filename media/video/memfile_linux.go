//go:build linux

package video

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// memFile holds data in an anonymous memory file (memfd_create) that a child
// process opens as /proc/self/fd/3. No name is ever visible in a directory.
func memFile(data []byte) (f *os.File, childPath string, err error) {
	fd, err := unix.MemfdCreate("mmgate-video", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, "", fmt.Errorf("memfd_create: %v: %w", err, ErrUnavailable)
	}
	f = os.NewFile(uintptr(fd), "memfd:mmgate-video")
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, "", fmt.Errorf("memfd write: %v: %w", err, ErrUnavailable)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, "", fmt.Errorf("memfd seek: %v: %w", err, ErrUnavailable)
	}
	return f, "/proc/self/fd/3", nil
}

// release frees the memory file.
func releaseMemFile(f *os.File, _ string) { f.Close() }

// childFD is the path under which a child opens its file descriptor fd.
func childFD(fd int) string { return fmt.Sprintf("/proc/self/fd/%d", fd) }

// pipeMaxSize is the largest pipe buffer an unprivileged process may set
// (fs.pipe-max-size, 1 MiB by default).
func pipeMaxSize() int {
	if b, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
			return n
		}
	}
	return 1 << 20
}

// growPipe asks for a pipe buffer of size bytes instead of 64 KiB, so that
// FFmpeg hands a frame over in a few writes rather than dozens of round
// trips.
func growPipe(f *os.File, size int) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, size) })
	}
}
