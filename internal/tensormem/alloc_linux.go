//go:build linux

package tensormem

import "golang.org/x/sys/unix"

// Alloc returns a zeroed buffer of exactly n bytes in a mapping of its own.
func (a *Allocator) Alloc(n int) ([]byte, error) {
	if n == 0 {
		return []byte{}, nil
	}
	size := n
	if n >= hugePage {
		size = n + hugePage // room to align the start
	}
	m, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, err
	}
	b := m[:n:n]
	if n >= hugePage {
		off := 0
		if r := addrMod(m, hugePage); r != 0 {
			off = hugePage - r
		}
		length := (n + hugePage - 1) / hugePage * hugePage
		if off+length > len(m) {
			length = len(m) - off
		}
		adviseHugePages(m[off : off+length])
		b = m[off : off+n : off+n]
	}
	a.mu.Lock()
	if a.maps == nil {
		a.maps = map[*byte][]byte{}
	}
	a.maps[&b[0]] = m
	a.mu.Unlock()
	return b, nil
}

// Free unmaps a buffer Alloc returned. b must not be used afterwards. A
// buffer Free does not know (empty, already freed, not from a) is left
// alone.
func (a *Allocator) Free(b []byte) {
	if len(b) == 0 {
		return
	}
	a.mu.Lock()
	m, ok := a.maps[&b[0]]
	delete(a.maps, &b[0])
	a.mu.Unlock()
	if ok {
		_ = unix.Munmap(m)
	}
}

// adviseHugePages asks for transparent huge pages over b (advisory only).
func adviseHugePages(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
