package tokenizer

// This file answers: how are merges looked up and applied quickly? A
// merge-rank table keyed by the pair of ids (open addressing), and a merge
// loop that works in place for short words and on a heap for long ones.

const emptyKey = ^uint64(0)

// mergeTable maps a pair of ids to its merge. Read-only after building.
type mergeTable struct {
	keys  []uint64
	vals  []mergeVal
	shift uint
}

func newMergeTable(n int) *mergeTable {
	size, bits := 16, uint(4)
	for size < 2*n {
		size <<= 1
		bits++
	}
	t := &mergeTable{keys: make([]uint64, size), vals: make([]mergeVal, size), shift: 64 - bits}
	for i := range t.keys {
		t.keys[i] = emptyKey
	}
	return t
}

func (t *mergeTable) slot(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> t.shift }

func (t *mergeTable) put(a, b uint32, v mergeVal) {
	k := uint64(a)<<32 | uint64(b)
	mask := uint64(len(t.keys) - 1)
	for i := t.slot(k); ; i = (i + 1) & mask {
		if t.keys[i] == emptyKey || t.keys[i] == k {
			t.keys[i], t.vals[i] = k, v
			return
		}
	}
}

func (t *mergeTable) get(a, b uint32) (mergeVal, bool) {
	k := uint64(a)<<32 | uint64(b)
	mask := uint64(len(t.keys) - 1)
	for i := t.slot(k); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k:
			return t.vals[i], true
		case emptyKey:
			return mergeVal{}, false
		}
	}
}

const noRank = ^uint32(0)

// longWord is the length above which merging uses a heap.
const longWord = 128

// mergeAll applies merges to syms in place and returns the merged symbols:
// repeatedly the pair with the lowest rank, the leftmost among equal ranks.
func (t *mergeTable) mergeAll(syms []uint32) []uint32 {
	if len(syms) < 2 {
		return syms
	}
	if len(syms) > longWord {
		return t.mergeLong(syms)
	}
	var rb [longWord]mergeVal
	ranks := rb[:len(syms)-1]
	for i := range ranks {
		ranks[i] = t.lookup(syms[i], syms[i+1])
	}
	for {
		best := -1
		br := noRank
		for i, r := range ranks {
			if r.rank < br {
				br, best = r.rank, i
			}
		}
		if best < 0 {
			return syms
		}
		syms[best] = ranks[best].id
		copy(syms[best+1:], syms[best+2:])
		syms = syms[:len(syms)-1]
		copy(ranks[best:], ranks[best+1:])
		ranks = ranks[:len(ranks)-1]
		if best > 0 {
			ranks[best-1] = t.lookup(syms[best-1], syms[best])
		}
		if best < len(ranks) {
			ranks[best] = t.lookup(syms[best], syms[best+1])
		}
	}
}

func (t *mergeTable) lookup(a, b uint32) mergeVal {
	if v, ok := t.get(a, b); ok {
		return v
	}
	return mergeVal{rank: noRank}
}

// mergeLong is mergeAll for long words: symbols in a linked list and, for
// each symbol, the merge with its right neighbour in an indexed min-heap
// keyed by rank<<32 | position (so lower rank first, then leftmost). Each
// merge updates at most three heap entries: O(n log n) for n symbols.
func (t *mergeTable) mergeLong(syms []uint32) []uint32 {
	n := len(syms)
	h := pairHeap{at: make([]int32, n), keys: make([]uint64, 0, n)}
	newID := make([]uint32, n)
	prev := make([]int32, n)
	next := make([]int32, n)
	for i := range syms {
		prev[i], next[i], h.at[i] = int32(i-1), int32(i+1), -1
	}
	next[n-1] = -1
	for i := 0; i+1 < n; i++ {
		if v, ok := t.get(syms[i], syms[i+1]); ok {
			newID[i] = v.id
			h.keys = append(h.keys, uint64(v.rank)<<32|uint64(i))
		}
	}
	h.init()
	for len(h.keys) > 0 {
		i := int32(uint32(h.keys[0]))
		j := next[i]
		syms[i] = newID[i]
		h.remove(j)
		next[i] = next[j]
		if next[j] >= 0 {
			prev[next[j]] = i
		}
		// The merges of i with its new right neighbour and of its left
		// neighbour with i.
		for _, k := range [2]int32{i, prev[i]} {
			if k < 0 {
				continue
			}
			if r := next[k]; r >= 0 {
				if v, ok := t.get(syms[k], syms[r]); ok {
					newID[k] = v.id
					h.set(k, uint64(v.rank)<<32|uint64(k))
					continue
				}
			}
			h.remove(k)
		}
	}
	out := syms[:0]
	for i := int32(0); i >= 0; i = next[i] {
		out = append(out, syms[i])
	}
	return out
}

// pairHeap is a binary min-heap of keys rank<<32 | position; at[position]
// is the key's index in keys, or -1.
type pairHeap struct {
	at   []int32
	keys []uint64
}

func (h *pairHeap) init() {
	for x, k := range h.keys {
		h.at[uint32(k)] = int32(x)
	}
	for x := len(h.keys)/2 - 1; x >= 0; x-- {
		h.down(x)
	}
}

func (h *pairHeap) up(x int) {
	k := h.keys[x]
	for x > 0 {
		p := (x - 1) / 2
		pk := h.keys[p]
		if pk <= k {
			break
		}
		h.keys[x] = pk
		h.at[uint32(pk)] = int32(x)
		x = p
	}
	h.keys[x] = k
	h.at[uint32(k)] = int32(x)
}

func (h *pairHeap) down(x int) {
	n := len(h.keys)
	k := h.keys[x]
	for {
		c := 2*x + 1
		if c >= n {
			break
		}
		if c+1 < n && h.keys[c+1] < h.keys[c] {
			c++
		}
		ck := h.keys[c]
		if k <= ck {
			break
		}
		h.keys[x] = ck
		h.at[uint32(ck)] = int32(x)
		x = c
	}
	h.keys[x] = k
	h.at[uint32(k)] = int32(x)
}

// set gives position pos the key k, inserting it if absent.
func (h *pairHeap) set(pos int32, k uint64) {
	x := h.at[pos]
	if x < 0 {
		h.keys = append(h.keys, k)
		h.up(len(h.keys) - 1)
		return
	}
	old := h.keys[x]
	h.keys[x] = k
	if k < old {
		h.up(int(x))
	} else {
		h.down(int(x))
	}
}

func (h *pairHeap) remove(pos int32) {
	x := int(h.at[pos])
	if x < 0 {
		return
	}
	h.at[pos] = -1
	last := len(h.keys) - 1
	lk := h.keys[last]
	h.keys = h.keys[:last]
	if x == last {
		return
	}
	h.keys[x] = lk
	h.at[uint32(lk)] = int32(x)
	h.down(x)
	h.up(int(h.at[uint32(lk)]))
}
