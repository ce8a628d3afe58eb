//go:build linux

package videoprep

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// benchAlloc places the tensor as `mmgate preprocess` does: a fresh
// anonymous mapping on a 2 MiB boundary, advised as transparent huge pages,
// so that filling it costs a few dozen page faults rather than tens of
// thousands.
func benchAlloc(n int) ([]byte, error) {
	const huge = 2 << 20
	m, err := unix.Mmap(-1, 0, n+huge, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, err
	}
	off := 0
	if r := int(uintptr(unsafe.Pointer(&m[0])) % huge); r != 0 {
		off = huge - r
	}
	_ = unix.Madvise(m[off:], unix.MADV_HUGEPAGE)
	mapped[&m[off]] = m
	return m[off : off+n : off+n], nil
}

// mapped remembers each benchmark mapping by the first byte handed out, for
// benchFree (benchmarks run one video at a time).
var mapped = map[*byte][]byte{}

func benchFree(b []byte) {
	if m, ok := mapped[&b[0]]; ok {
		delete(mapped, &b[0])
		_ = unix.Munmap(m)
	}
}
