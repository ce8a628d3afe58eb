package resample

import (
	"container/list"
	"sync"
)

// tableKey identifies a coefficient table.
type tableKey struct {
	nIn, nOut int
	f         Filter
}

// tableCache is a bounded least-recently-used cache of coefficient tables,
// safe for concurrent use. Tables are immutable once built, so they are
// shared between callers without copying.
type tableCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front = most recently used; values are *cacheEntry
	items map[tableKey]*list.Element
}

type cacheEntry struct {
	key tableKey
	t   *table
}

func newTableCache(max int) *tableCache {
	return &tableCache{max: max, order: list.New(), items: make(map[tableKey]*list.Element)}
}

// get returns the table for key, building it (outside the lock) on a miss.
// Two goroutines missing the same key at once both build it; the tables are
// identical, and the second insert keeps the first.
func (c *tableCache) get(key tableKey, k kernel) *table {
	if c.max <= 0 {
		return buildTable(key.nIn, key.nOut, k)
	}
	c.mu.Lock()
	if e, ok := c.items[key]; ok {
		c.order.MoveToFront(e)
		t := e.Value.(*cacheEntry).t
		c.mu.Unlock()
		return t
	}
	c.mu.Unlock()

	t := buildTable(key.nIn, key.nOut, k)

	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*cacheEntry).t
	}
	c.items[key] = c.order.PushFront(&cacheEntry{key, t})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).key)
	}
	return t
}

// len reports the number of cached tables.
func (c *tableCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
