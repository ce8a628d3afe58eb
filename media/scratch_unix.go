//go:build unix

package media

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// mapScratch maps n bytes of anonymous memory (zeroed by the kernel, page by
// page as it is first touched).
func mapScratch(n int) ([]uint8, error) {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("scratch memory of %d bytes: %w", n, err)
	}
	return b, nil
}

func unmapScratch(b []uint8) { unix.Munmap(b[:cap(b)]) }
