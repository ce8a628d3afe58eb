//go:build linux

package tensormem

import "golang.org/x/sys/unix"

// Alloc returns a zeroed buffer of exactly n bytes in a mapping of its own.
func (a *Allocator) Alloc(n int) ([]byte, error) {
	if n == 0 {
		return []byte{}, nil
	}
	a.mu.Lock()
	stale := a.kept
	a.kept = nil
	a.mu.Unlock()
	unmapAll(stale)
	return a.mapNew(n)
}

// Reuse returns a buffer of exactly n bytes whose contents are undefined,
// for a caller that overwrites every byte: a kept buffer's mapping when
// one has room for n bytes and is not much larger (its pages are already
// in memory, so filling it costs no page faults), else a new mapping. The
// kept buffers that do not fit are unmapped first, so that memory stays
// close to the buffers in use.
func (a *Allocator) Reuse(n int) ([]byte, error) {
	if n == 0 {
		return []byte{}, nil
	}
	a.mu.Lock()
	var stale [][]byte
	for i, m := range a.kept {
		if b := reuseIn(m, n); b != nil {
			a.kept = append(a.kept[:i], a.kept[i+1:]...)
			a.maps[&b[0]] = m
			a.mu.Unlock()
			return b, nil
		}
	}
	stale, a.kept = a.kept, nil
	a.mu.Unlock()
	unmapAll(stale)
	return a.mapNew(n)
}

// reuseIn returns n bytes of mapping m, aligned as mapNew aligns them,
// when m holds them and is at most a quarter (plus the alignment room)
// larger; else nil.
func reuseIn(m []byte, n int) []byte {
	if len(m) > n+n/4+hugePage {
		return nil
	}
	off := 0
	if n >= hugePage {
		if r := addrMod(m, hugePage); r != 0 {
			off = hugePage - r
		}
	}
	if off+n > len(m) {
		return nil
	}
	return m[off : off+n : off+n]
}

func unmapAll(ms [][]byte) {
	for _, m := range ms {
		_ = unix.Munmap(m)
	}
}

// mapNew maps a buffer of n > 0 bytes.
func (a *Allocator) mapNew(n int) ([]byte, error) {
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

// Free takes back a buffer Alloc or Reuse returned: it is kept for Reuse
// while fewer than Keep are, and unmapped otherwise. b must not be used
// afterwards. A buffer Free does not know (empty, already freed, not from
// a) is left alone.
func (a *Allocator) Free(b []byte) {
	if len(b) == 0 {
		return
	}
	a.mu.Lock()
	m, ok := a.maps[&b[0]]
	delete(a.maps, &b[0])
	if ok && len(a.kept) < a.Keep {
		a.kept = append(a.kept, m)
		ok = false
	}
	a.mu.Unlock()
	if ok {
		_ = unix.Munmap(m)
	}
}

// Close unmaps the kept buffers.
func (a *Allocator) Close() {
	a.mu.Lock()
	stale := a.kept
	a.kept = nil
	a.mu.Unlock()
	unmapAll(stale)
}

// adviseHugePages asks for transparent huge pages over b (advisory only).
func adviseHugePages(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
