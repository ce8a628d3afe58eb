//go:build linux

package video

import (
	"fmt"
	"os"

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
