package prefixtree

import (
	"sync"
	"time"
)

// Defaults for Options.
const (
	// DefaultMaxTokens bounds the keys one worker owns (2 MiB of keys): a
	// few hundred image turns, against SMG's 10,000 tokens, which hold only
	// a handful of multimodal prompts.
	DefaultMaxTokens = 1 << 18
	// DefaultMaxAge: an engine's cache rarely keeps an idle prefix longer
	// under load.
	DefaultMaxAge = 10 * time.Minute
	// SweepInterval is the most often the age sweep runs.
	SweepInterval = 30 * time.Second
)

// Options configure a Tree; the zero value of each field means its
// default.
type Options struct {
	// MaxTokens is the most keys one worker owns. Default 1<<18.
	MaxTokens int
	// MaxAge drops what a worker has not touched for this long. Default
	// 10 min.
	MaxAge time.Duration
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Tree is the prefix tree of one model's workers.
type Tree struct {
	maxTokens int
	maxAge    time.Duration
	now       func() time.Time
	epoch     time.Time

	mu        sync.Mutex
	root      node
	ids       map[string]int32 // worker → tenant id
	names     []string         // tenant id → worker ("" when free)
	free      []int32
	tokens    []int // tenant id → keys owned
	seq       uint64
	lastAt    int64 // latest access time, ns since epoch (never decreases)
	lastSweep int64
	nodes     int
}

// New returns an empty tree.
func New(o Options) *Tree {
	t := &Tree{maxTokens: o.MaxTokens, maxAge: o.MaxAge, now: o.Now, ids: map[string]int32{}}
	if t.maxTokens <= 0 {
		t.maxTokens = DefaultMaxTokens
	}
	if t.maxAge <= 0 {
		t.maxAge = DefaultMaxAge
	}
	if t.now == nil {
		t.now = time.Now
	}
	t.epoch = t.now()
	return t
}

// Match returns, for each worker whose recorded prefixes share a
// page-aligned beginning with keys, the number of keys matched.
func (t *Tree) Match(keys []uint64) map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byName(t.match(keys))
}

// Insert records keys (page-aligned: a final partial page is dropped) as
// sent to worker.
func (t *Tree) Insert(keys []uint64, worker string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.insertLocked(keys, worker)
}

// MatchInsert matches keys, calls choose with the matches (as Match
// returns them) and the keys each worker holds (as Sizes returns them), and
// records keys for the worker it returns, all under the tree's lock; choose
// returning ok false records nothing. It returns choose's result.
func (t *Tree) MatchInsert(keys []uint64, choose func(matches, sizes map[string]int) (worker string, ok bool)) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, ok := choose(t.byName(t.match(keys)), t.sizesLocked())
	if ok {
		t.insertLocked(keys, w)
	}
	return w, ok
}

// Forget drops everything recorded for worker.
func (t *Tree) Forget(worker string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.ids[worker]
	if !ok {
		return
	}
	t.prune(&t.root, func(o owner) bool { return o.id == id })
	t.release(id)
}

// Sizes returns the keys each worker owns.
func (t *Tree) Sizes() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sizesLocked()
}

func (t *Tree) sizesLocked() map[string]int {
	out := make(map[string]int, len(t.ids))
	for w, id := range t.ids {
		out[w] = t.tokens[id]
	}
	return out
}

// Nodes returns the number of nodes (the root excluded).
func (t *Tree) Nodes() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.nodes
}

func (t *Tree) byName(m map[int32]int) map[string]int {
	out := make(map[string]int, len(m))
	for id, n := range m {
		out[t.names[id]] = n
	}
	return out
}

// tick returns the access stamp of an operation now.
func (t *Tree) tick() (seq uint64, at int64) {
	t.seq++
	at = int64(t.now().Sub(t.epoch))
	t.lastAt = max(t.lastAt, at)
	return t.seq, t.lastAt
}

func (t *Tree) insertLocked(keys []uint64, worker string) {
	keys = keys[:len(keys)/PageSize*PageSize]
	if len(keys) == 0 {
		return
	}
	id := t.tenant(worker)
	seq, at := t.tick()
	t.insert(keys, id, seq, at)
	if t.tokens[id] > t.maxTokens {
		t.evict(id, t.maxTokens/8*7)
	}
	if time.Duration(at-t.lastSweep) >= min(SweepInterval, t.maxAge) {
		t.lastSweep = at
		cutoff := at - int64(t.maxAge)
		t.prune(&t.root, func(o owner) bool { return o.at < cutoff })
	}
}

// tenant returns worker's id, allocating one.
func (t *Tree) tenant(worker string) int32 {
	if id, ok := t.ids[worker]; ok {
		return id
	}
	var id int32
	if n := len(t.free); n > 0 {
		id, t.free = t.free[n-1], t.free[:n-1]
		t.names[id], t.tokens[id] = worker, 0
	} else {
		id = int32(len(t.names))
		t.names, t.tokens = append(t.names, worker), append(t.tokens, 0)
	}
	t.ids[worker] = id
	return id
}

func (t *Tree) release(id int32) {
	delete(t.ids, t.names[id])
	t.names[id], t.tokens[id] = "", 0
	t.free = append(t.free, id)
}
