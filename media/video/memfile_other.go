//go:build !linux

package video

import (
	"fmt"
	"os"
)

// memFile writes data to a temporary file with a random name and returns its
// path; releaseMemFile removes it. (Linux uses an anonymous memory file.)
func memFile(data []byte) (f *os.File, childPath string, err error) {
	f, err = os.CreateTemp("", "mmgate-video-*")
	if err != nil {
		return nil, "", fmt.Errorf("temporary file: %v: %w", err, ErrUnavailable)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, "", fmt.Errorf("temporary file: %v: %w", err, ErrUnavailable)
	}
	return f, f.Name(), nil
}

func releaseMemFile(f *os.File, path string) {
	f.Close()
	os.Remove(path)
}

// childFD is the path under which a child opens its file descriptor fd.
func childFD(fd int) string { return fmt.Sprintf("/dev/fd/%d", fd) }

// pipeMaxSize and growPipe keep the default pipe buffer outside Linux.
func pipeMaxSize() int { return 0 }

func growPipe(*os.File, int) {}
