package tokenizer

import "sync"

// This file answers: how are merges looked up and applied quickly? A
// merge-rank table keyed by the pair of ids (open addressing), and a merge
// loop that works in place for short words and on a heap for long ones.

const emptyKey = ^uint64(0)

// mergeTable maps a pair of ids to its merge. Read-only after building,
// except for the pool of scratch buffers of mergeLong.
type mergeTable struct {
	keys    []uint64
	vals    []mergeVal
	shift   uint
	scratch sync.Pool // *longScratch
}

// longScratch holds mergeLong's working arrays between calls.
type longScratch struct {
	tree       []uint64
	newID      []uint32
	prev, next []int32
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
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
const longWord = 64

// mergeAll applies merges to syms in place and returns the merged symbols:
// repeatedly the pair with the lowest rank, the leftmost among equal ranks.
func (t *mergeTable) mergeAll(syms []uint32) []uint32 {
	if len(syms) < 2 {
		return syms
	}
	if len(syms) > longWord {
		return t.mergeLong(syms)
	}
	return t.mergeAllSmall(syms)
}

// mergeAllSmall is mergeAll for words of at most longWord symbols: the
// ranks of adjacent pairs in an array, scanned for the minimum.
func (t *mergeTable) mergeAllSmall(syms []uint32) []uint32 {
	var rb [longWord]mergeVal
	var ranks []mergeVal
	if len(syms)-1 <= longWord {
		ranks = rb[:len(syms)-1]
	} else {
		ranks = make([]mergeVal, len(syms)-1)
	}
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
// each symbol, the merge with its right neighbour as a key rank<<32 |
// position in a tournament tree (a complete binary tree whose every node
// holds the least key below it, so lower rank first, then leftmost). Each
// merge changes at most three leaves: O(n log n) for n symbols.
func (t *mergeTable) mergeLong(syms []uint32) []uint32 {
	n := len(syms)
	size := 1
	for size < n {
		size <<= 1
	}
	sc, _ := t.scratch.Get().(*longScratch)
	if sc == nil {
		sc = &longScratch{}
	}
	defer t.scratch.Put(sc)
	sc.tree = grow(sc.tree, 2*size)
	sc.newID = grow(sc.newID, n)
	sc.prev = grow(sc.prev, n)
	sc.next = grow(sc.next, n)
	tree, newID, prev, next := sc.tree, sc.newID, sc.prev, sc.next
	for i := range tree {
		tree[i] = noKey
	}
	for i := range syms {
		prev[i], next[i] = int32(i-1), int32(i+1)
	}
	next[n-1] = -1
	for i := 0; i+1 < n; i++ {
		if v, ok := t.get(syms[i], syms[i+1]); ok {
			newID[i] = v.id
			tree[size+i] = uint64(v.rank)<<32 | uint64(i)
		}
	}
	for x := size - 1; x >= 1; x-- {
		tree[x] = min(tree[2*x], tree[2*x+1])
	}
	for tree[1] != noKey {
		i := int32(uint32(tree[1]))
		j := next[i]
		syms[i] = newID[i]
		setLeaf(tree, size+int(j), noKey)
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
			key := noKey
			if r := next[k]; r >= 0 {
				if v, ok := t.get(syms[k], syms[r]); ok {
					newID[k] = v.id
					key = uint64(v.rank)<<32 | uint64(k)
				}
			}
			setLeaf(tree, size+int(k), key)
		}
	}
	out := syms[:0]
	for i := int32(0); i >= 0; i = next[i] {
		out = append(out, syms[i])
	}
	return out
}

const noKey = ^uint64(0)

// setLeaf sets leaf x of a tournament tree and updates the minima above
// it, stopping where a minimum does not change.
func setLeaf(tree []uint64, x int, key uint64) {
	if tree[x] == key {
		return
	}
	tree[x] = key
	for x > 1 {
		p := x >> 1
		m := min(tree[x], tree[x^1])
		if tree[p] == m {
			return
		}
		tree[p] = m
		x = p
	}
}
