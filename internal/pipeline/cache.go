package pipeline

import (
	"container/list"
	"encoding/hex"
	"strconv"
	"sync"

	"github.com/mmgate/mmgate/internal/admission"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// tensorKey identifies a preprocessed image: its content hash, the
// processor configuration (Assets.ProcessorKey, from the model's family),
// the request's pixel bounds and the dtype.
func tensorKey(hash [32]byte, processor string, ov vision.Overrides, dt tensor.DType) string {
	return hex.EncodeToString(hash[:]) + "|" + processor + "|" + strconv.Itoa(ov.MinPixels) + "|" + strconv.Itoa(ov.MaxPixels) + "|" + dt.String()
}

// cached is a preprocessed image: its plan and its pixel_values bytes in one
// dtype. Data is never modified once stored: inline transports share it, shm
// transports copy it into a fresh segment.
type cached struct {
	plan vision.Plan
	data []byte
}

// tensorCache is an LRU of preprocessed tensors under a byte budget. It is
// safe for concurrent use.
//
// Admission: a tensor is stored the second time its key is seen (a small
// bounded record of keys seen once is kept), so that a stream of distinct
// images costs no copies into the cache; repeated images are cached from
// their second request on.
//
// With a memory budget (hold, counting the cache's bytes in the tensor
// memory budget of package admission) a tensor is stored only when it fits
// there without delaying a request, and the budget takes cached tensors
// back, least recently used first, when a request waits for room
// (reclaim).
type tensorCache struct {
	budget int64
	hold   *admission.Holder

	mu    sync.Mutex
	used  int64
	ll    *list.List
	items map[string]*list.Element
	seen  map[string]struct{} // keys missed once, not stored
	order []string            // seen, oldest first (bounded)
}

// seenKeys bounds the record of keys seen once.
const seenKeys = 4096

type cacheEntry struct {
	key string
	val cached
}

func newTensorCache(budget int64, hold *admission.Holder) *tensorCache {
	c := &tensorCache{budget: budget, hold: hold, ll: list.New(), items: map[string]*list.Element{}, seen: map[string]struct{}{}}
	hold.OnReclaim(c.reclaim)
	return c
}

// get returns the entry for key and marks it recently used.
func (c *tensorCache) get(key string) (cached, bool) {
	if c == nil || c.budget <= 0 {
		return cached{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return cached{}, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*cacheEntry).val, true
}

// admit records a miss for key and reports whether the tensor should be
// stored (the key was missed before).
func (c *tensorCache) admit(key string) bool {
	if c == nil || c.budget <= 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.seen[key]; ok {
		delete(c.seen, key)
		return true
	}
	if len(c.order) >= seenKeys {
		delete(c.seen, c.order[0])
		c.order = c.order[1:]
	}
	c.seen[key] = struct{}{}
	c.order = append(c.order, key)
	return false
}

// put stores val (which the cache now owns) unless it alone is over the
// budget, evicting the least recently used entries to make room. It reports
// whether val was stored.
func (c *tensorCache) put(key string, val cached) bool {
	if c == nil || c.budget <= 0 || int64(len(val.data)) > c.budget {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.ll.MoveToFront(e)
		return true
	}
	if !c.hold.TryAdd(int64(len(val.data))) {
		return false
	}
	c.items[key] = c.ll.PushFront(&cacheEntry{key: key, val: val})
	c.used += int64(len(val.data))
	for c.used > c.budget {
		c.evictLocked()
	}
	return true
}

// reclaim evicts the least recently used entries until want bytes are
// freed or the cache is empty, and returns the bytes freed (the memory
// budget's reclaim function).
func (c *tensorCache) reclaim(want int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var freed int64
	for freed < want && c.ll.Len() > 0 {
		freed += c.evictLocked()
	}
	return freed
}

// evictLocked drops the least recently used entry and returns its bytes.
func (c *tensorCache) evictLocked() int64 {
	last := c.ll.Back()
	ent := last.Value.(*cacheEntry)
	c.ll.Remove(last)
	delete(c.items, ent.key)
	n := int64(len(ent.val.data))
	c.used -= n
	c.hold.Add(-n)
	return n
}

// usage is the bytes and entries held.
func (c *tensorCache) usage() (int64, int) {
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used, len(c.items)
}
