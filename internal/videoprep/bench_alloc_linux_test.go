//go:build linux

package videoprep

import "golang.org/x/sys/unix"

// benchAlloc places a tensor in a fresh anonymous mapping (4 KiB pages, as a
// shared-memory segment has), so each run pays its own page faults, as the
// reference does; benchFree unmaps it. (Transparent huge pages, which
// `mmgate preprocess` asks for, made the timings vary with the kernel's
// compaction work.)
func benchAlloc(n int) ([]byte, error) {
	m, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, err
	}
	return m, nil
}

func benchFree(b []byte) { _ = unix.Munmap(b) }
