package shm

import (
	"sync"

	"golang.org/x/sys/unix"
)

// This file answers: how does a worker that keeps segments avoid mapping
// the same pages again for every request? A gateway that refills segments
// (Route.Reuse) renames one file for each request; its pages stay the same.
// The reader keeps the mapping of each file it has seen, keyed by the
// file's identity (device and inode), and hands it out again when a later
// name opens the same file: no mmap, no page-table population, no munmap.
//
// A cached mapping keeps its file's inode alive, so its number cannot be
// given to another file while the entry exists; entries are evicted (least
// recently used, when not in use) beyond a small bound, which also bounds
// the memory of files the gateway has since removed. Each entry keeps a
// descriptor of its file, so that a mapping of a file the gateway removed
// (no link left: no name can reach it again) is dropped as soon as it is
// not in use — when it is given back, and on Reader.Prune — and its pages
// are freed instead of lingering until eviction.

// mapCacheEntries bounds the mappings kept.
const mapCacheEntries = 16

type fileID struct{ dev, ino uint64 }

type cachedMap struct {
	mem  []byte
	fd   int // the file, to see whether it still has a name
	refs int
	used uint64 // last use, for eviction
}

// mapCache is safe for concurrent use.
type mapCache struct {
	mu    sync.Mutex
	clock uint64
	maps  map[fileID]*cachedMap
}

// mapping returns a read-only mapping of the whole file open as fd (size
// bytes) and a function that gives it back.
func (c *mapCache) mapping(fd int, st *unix.Stat_t) ([]byte, func() error, error) {
	id := fileID{dev: uint64(st.Dev), ino: st.Ino}
	size := int(st.Size)
	c.mu.Lock()
	if c.maps == nil {
		c.maps = map[fileID]*cachedMap{}
	}
	c.clock++
	if e, ok := c.maps[id]; ok && len(e.mem) == size {
		e.refs++
		e.used = c.clock
		c.mu.Unlock()
		return e.mem, c.release(e), nil
	}
	c.mu.Unlock()

	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, nil, err
	}
	kept, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		// Out of descriptors: serve this mapping uncached.
		return mem, func() error { return unix.Munmap(mem) }, nil
	}
	e := &cachedMap{mem: mem, fd: kept, refs: 1}
	c.mu.Lock()
	c.clock++
	e.used = c.clock
	if old, ok := c.maps[id]; ok && old.refs == 0 {
		old.drop()
	} else if ok {
		unix.Close(kept)
		// A different size under the same identity (the file grew) while
		// the old mapping is in use: keep serving this one uncached.
		c.mu.Unlock()
		return mem, func() error { return unix.Munmap(mem) }, nil
	}
	c.maps[id] = e
	c.evictLocked()
	c.mu.Unlock()
	return mem, c.release(e), nil
}

func (c *mapCache) release(e *cachedMap) func() error {
	var once sync.Once
	return func() error {
		once.Do(func() {
			c.mu.Lock()
			e.refs--
			if e.refs == 0 && removed(e) {
				c.dropLocked(e)
			}
			c.evictLocked()
			c.mu.Unlock()
		})
		return nil
	}
}

// evictLocked unmaps the least recently used idle entries beyond the bound.
func (c *mapCache) evictLocked() {
	for len(c.maps) > mapCacheEntries {
		var victim fileID
		var oldest *cachedMap
		for id, e := range c.maps {
			if e.refs == 0 && (oldest == nil || e.used < oldest.used) {
				victim, oldest = id, e
			}
		}
		if oldest == nil {
			return // every entry is in use
		}
		delete(c.maps, victim)
		oldest.drop()
	}
}

// prune drops the idle entries of files that have no name left.
func (c *mapCache) prune() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.maps {
		if e.refs == 0 && removed(e) {
			c.dropLocked(e)
		}
	}
}

// removed reports whether e's file has no link left (or cannot be told).
func removed(e *cachedMap) bool {
	var st unix.Stat_t
	return unix.Fstat(e.fd, &st) != nil || st.Nlink == 0
}

// dropLocked removes e from the cache and unmaps it.
func (c *mapCache) dropLocked(e *cachedMap) {
	for id, x := range c.maps {
		if x == e {
			delete(c.maps, id)
		}
	}
	e.drop()
}

// drop unmaps an entry and closes its descriptor.
func (e *cachedMap) drop() {
	unix.Munmap(e.mem)
	unix.Close(e.fd)
}

// close unmaps every idle entry (entries in use are unmapped by their
// release once the cache is empty of them).
func (c *mapCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, e := range c.maps {
		if e.refs == 0 {
			e.drop()
			delete(c.maps, id)
		}
	}
}
