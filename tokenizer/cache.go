package tokenizer

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// This file answers: how are the ids of frequent words remembered? In a
// bounded, lock-free, direct-mapped cache: each word hashes to one slot
// holding an immutable entry; a new word evicts whatever held its slot.
// Readers never block, and memory stays bounded.

const (
	defaultCacheEntries = 1 << 16
	maxCacheEntries     = 1 << 24
	maxCachedWord       = 256 // bytes; longer words are not cached (as in tokenizers)
)

type cacheEntry struct {
	word string
	ids  []uint32
}

type wordCache struct {
	seed  maphash.Seed
	mask  uint64
	slots []atomic.Pointer[cacheEntry]
}

// newWordCache returns a cache of about entries words (0 means the default).
func newWordCache(entries int) *wordCache {
	if entries == 0 {
		entries = defaultCacheEntries
	}
	entries = min(entries, maxCacheEntries)
	n := 1
	for n < entries {
		n <<= 1
	}
	return &wordCache{seed: maphash.MakeSeed(), mask: uint64(n - 1), slots: make([]atomic.Pointer[cacheEntry], n)}
}

func (c *wordCache) get(w string) ([]uint32, bool) {
	e := c.slots[maphash.String(c.seed, w)&c.mask].Load()
	if e != nil && e.word == w {
		return e.ids, true
	}
	return nil, false
}

func (c *wordCache) put(w string, ids []uint32) {
	// w may point into a large input: keep a copy.
	c.slots[maphash.String(c.seed, w)&c.mask].Store(&cacheEntry{word: strings.Clone(w), ids: ids})
}
