package prefixtree

import "container/heap"

// page is a node's child key: its first PageSize keys.
type page [PageSize]uint64

func pageOf(keys []uint64) page { return page(keys[:PageSize]) }

// node holds a run of keys (a multiple of PageSize long) and the workers
// that own it. A worker owning a node owns all its ancestors, and their
// access stamps are at least as recent as the node's: inserts touch the
// whole path, and eviction removes leaves first.
type node struct {
	keys     []uint64
	parent   *node
	children map[page]*node
	owners   []owner
}

type owner struct {
	id  int32
	seq uint64 // LRU order
	at  int64  // access time, ns since the tree's epoch
}

func (n *node) owns(id int32) int {
	for i, o := range n.owners {
		if o.id == id {
			return i
		}
	}
	return -1
}

// commonPages is the length of the common prefix of a and b, rounded down
// to whole pages.
func commonPages(a, b []uint64) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i / PageSize * PageSize
}

// match walks keys down the tree and returns each owner's matched length.
func (t *Tree) match(keys []uint64) map[int32]int {
	got := map[int32]int{}
	cur, done := &t.root, 0
	for len(keys)-done >= PageSize {
		child := cur.children[pageOf(keys[done:])]
		if child == nil {
			break
		}
		common := commonPages(keys[done:], child.keys)
		done += common
		for _, o := range child.owners {
			got[o.id] = done
		}
		if common < len(child.keys) {
			break
		}
		cur = child
	}
	return got
}

// insert records keys (whole pages) for id, splitting nodes where the
// path leaves them.
func (t *Tree) insert(keys []uint64, id int32, seq uint64, at int64) {
	cur := &t.root
	for len(keys) > 0 {
		pk := pageOf(keys)
		child := cur.children[pk]
		if child == nil {
			n := &node{keys: append([]uint64(nil), keys...), parent: cur}
			t.link(cur, pk, n)
			t.touch(n, id, seq, at)
			return
		}
		common := commonPages(keys, child.keys)
		if common < len(child.keys) {
			child = t.split(child, common)
		}
		t.touch(child, id, seq, at)
		keys, cur = keys[common:], child
	}
}

func (t *Tree) link(parent *node, pk page, n *node) {
	if parent.children == nil {
		parent.children = map[page]*node{}
	}
	parent.children[pk] = n
	t.nodes++
}

// split cuts n after at keys and returns the new parent holding the first
// part, owned as n was.
func (t *Tree) split(n *node, at int) *node {
	mid := &node{keys: n.keys[:at:at], parent: n.parent, owners: append([]owner(nil), n.owners...)}
	n.parent.children[pageOf(n.keys)] = mid
	n.keys = n.keys[at:]
	n.parent = mid
	mid.children = map[page]*node{pageOf(n.keys): n}
	t.nodes++
	return mid
}

func (t *Tree) touch(n *node, id int32, seq uint64, at int64) {
	if i := n.owns(id); i >= 0 {
		n.owners[i].seq, n.owners[i].at = seq, at
		return
	}
	n.owners = append(n.owners, owner{id: id, seq: seq, at: at})
	t.tokens[id] += len(n.keys)
}

// disown removes owner i of n and unlinks n, and then its ancestors, when
// nothing is left in them. It returns the nearest node still linked.
func (t *Tree) disown(n *node, i int) *node {
	t.tokens[n.owners[i].id] -= len(n.keys)
	n.owners = append(n.owners[:i], n.owners[i+1:]...)
	for n.parent != nil && len(n.owners) == 0 && len(n.children) == 0 {
		delete(n.parent.children, pageOf(n.keys))
		t.nodes--
		n = n.parent
	}
	return n
}

// prune removes every owner drop selects below n, leaves first, and the
// nodes left empty.
func (t *Tree) prune(n *node, drop func(owner) bool) {
	for _, c := range n.children {
		t.prune(c, drop)
	}
	if n == &t.root {
		return
	}
	for i := len(n.owners) - 1; i >= 0; i-- {
		if drop(n.owners[i]) {
			t.disown(n, i)
		}
	}
}

// evict removes id's least recently used leaves until it owns at most
// target keys.
func (t *Tree) evict(id int32, target int) {
	h := &leafHeap{}
	t.leaves(&t.root, id, h)
	heap.Init(h)
	for t.tokens[id] > target && h.Len() > 0 {
		n := heap.Pop(h).(leafEntry).n
		i := n.owns(id)
		if i < 0 {
			continue
		}
		p := n.parent
		t.disown(n, i)
		if p != &t.root && isLeafOf(p, id) {
			heap.Push(h, leafEntry{p, p.owners[p.owns(id)].seq})
		}
	}
}

// leaves collects the nodes id owns where no child is id's.
func (t *Tree) leaves(n *node, id int32, h *leafHeap) {
	for _, c := range n.children {
		t.leaves(c, id, h)
	}
	if n != &t.root && isLeafOf(n, id) {
		*h = append(*h, leafEntry{n, n.owners[n.owns(id)].seq})
	}
}

func isLeafOf(n *node, id int32) bool {
	if n.owns(id) < 0 {
		return false
	}
	for _, c := range n.children {
		if c.owns(id) >= 0 {
			return false
		}
	}
	return true
}

type leafEntry struct {
	n   *node
	seq uint64
}

// leafHeap orders leaves by last use, oldest first.
type leafHeap []leafEntry

func (h leafHeap) Len() int           { return len(h) }
func (h leafHeap) Less(i, j int) bool { return h[i].seq < h[j].seq }
func (h leafHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *leafHeap) Push(x any)        { *h = append(*h, x.(leafEntry)) }
func (h *leafHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
