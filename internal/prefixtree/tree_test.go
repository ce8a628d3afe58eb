package prefixtree

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"
)

func seq(start, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(start + i)
	}
	return out
}

func cat(parts ...[]uint64) []uint64 {
	var out []uint64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// check verifies the tree's invariants: node count, no empty node, each
// owner owns the parent too, token counts.
func check(t *testing.T, tr *Tree) {
	t.Helper()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tokens := make([]int, len(tr.tokens))
	nodes := 0
	var walk func(n *node)
	walk = func(n *node) {
		for pk, c := range n.children {
			nodes++
			if c.parent != n || pageOf(c.keys) != pk || len(c.keys)%PageSize != 0 || len(c.keys) == 0 {
				t.Fatalf("bad link or keys at %v", pk[0])
			}
			if len(c.owners) == 0 {
				t.Fatalf("node without owners")
			}
			for _, o := range c.owners {
				tokens[o.id] += len(c.keys)
				if n != &tr.root && n.owns(o.id) < 0 {
					t.Fatalf("owner %d of a node does not own its parent", o.id)
				}
				if n != &tr.root && n.owners[n.owns(o.id)].at < o.at {
					t.Fatalf("parent older than child for owner %d", o.id)
				}
			}
			walk(c)
		}
	}
	walk(&tr.root)
	if nodes != tr.nodes {
		t.Fatalf("nodes %d, counted %d", tr.nodes, nodes)
	}
	if !reflect.DeepEqual(tokens, tr.tokens) {
		t.Fatalf("tokens %v, counted %v", tr.tokens, tokens)
	}
}

func TestKeys(t *testing.T) {
	var a, b [32]byte
	a[0], b[0] = 1, 2
	keys, err := Keys(Prompt{IDs: []uint32{7, 0, 0, 0, 9, 0, 0, 4}, Media: []Span{{Offset: 5, Length: 2, Hash: b}, {Offset: 1, Length: 3, Hash: a}}})
	if err != nil {
		t.Fatal(err)
	}
	ka, kb := MediaKey(a), MediaKey(b)
	if want := []uint64{7, ka, ka, ka, 9, kb, kb, 4}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	if ka == kb || ka < 1<<32 {
		t.Fatal("media keys collide with each other or with token ids")
	}
	for bit := range 63 { // hashes differing in any one of the 63 bits used
		var c [32]byte
		c[bit/8] = 1 << (bit % 8)
		if MediaKey(c) == MediaKey([32]byte{}) {
			t.Fatalf("hashes differing in bit %d share a key", bit)
		}
	}
	ids := []uint32{1, 2, 3, 4}
	for _, spans := range [][]Span{
		{{Offset: 3, Length: 2}}, {{Offset: -1, Length: 1}}, {{Offset: 0, Length: -1}},
		{{Offset: 0, Length: 2}, {Offset: 1, Length: 2}},
		{{Offset: 1, Length: int(^uint(0) >> 1)}},
	} {
		if _, err := Keys(Prompt{IDs: ids, Media: spans}); !errors.Is(err, ErrBadPrompt) {
			t.Errorf("spans %v: %v, want ErrBadPrompt", spans, err)
		}
	}
}

func TestDifferentImagesNeverShare(t *testing.T) {
	tr := New(Options{})
	sys := seq(1000, 32)
	var a, b [32]byte
	a[5], b[5] = 1, 2
	prompt := func(h [32]byte) []uint64 {
		ids := make([]uint32, 32+64+20)
		for i := range ids {
			ids[i] = uint32(1000 + i) // the pad ids themselves are all alike below
		}
		for i := 32; i < 96; i++ {
			ids[i] = 151655
		}
		keys, err := Keys(Prompt{IDs: ids, Media: []Span{{Offset: 32, Length: 64, Hash: h}}})
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	if !reflect.DeepEqual(prompt(a)[:32], sys) {
		t.Fatal("test prompt setup")
	}
	tr.Insert(prompt(a), "w1")
	if got := tr.Match(prompt(b)); got["w1"] != 32 {
		t.Fatalf("other image matched %v, want the 32 text keys only", got)
	}
	if got := tr.Match(prompt(a)); got["w1"] != 112 {
		t.Fatalf("same image matched %v, want 112 (7 whole pages)", got)
	}
	check(t, tr)
}

func TestMatchPerWorker(t *testing.T) {
	tr := New(Options{})
	p, x, y, z := seq(0, 32), seq(100, 48), seq(200, 16), seq(300, 20)
	tr.Insert(cat(p, x), "w1")
	tr.Insert(cat(p, y), "w2")
	tr.Insert(seq(0, 15), "w3") // under a page: not recorded
	if got, want := tr.Match(cat(p, x, z)), map[string]int{"w1": 80, "w2": 32}; !reflect.DeepEqual(got, want) {
		t.Fatalf("match %v, want %v", got, want)
	}
	if got := tr.Match(cat(p, x[:20])); !reflect.DeepEqual(got, map[string]int{"w1": 48, "w2": 32}) {
		t.Fatalf("partial page: %v", got)
	}
	if got := tr.Match(seq(5, 40)); len(got) != 0 {
		t.Fatalf("unrelated: %v", got)
	}
	if got := tr.Match(nil); len(got) != 0 {
		t.Fatalf("empty: %v", got)
	}
	if got := tr.Sizes(); !reflect.DeepEqual(got, map[string]int{"w1": 80, "w2": 48}) {
		t.Fatalf("sizes %v", got)
	}
	check(t, tr)
}

// TestAgainstReference compares Match and Sizes with a brute-force model
// on random prompts over a small alphabet (many shared prefixes and splits).
func TestAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tr := New(Options{})
	ref := map[string]map[string]bool{} // worker → set of page prefixes
	workers := []string{"a", "b", "c"}
	random := func() []uint64 {
		n := rng.IntN(6) * PageSize / 2 * 3
		out := make([]uint64, n+rng.IntN(PageSize))
		for i := range out {
			out[i] = uint64(rng.IntN(2))
			if i%PageSize != 0 {
				out[i] = out[i-i%PageSize]
			}
		}
		return out
	}
	for step := range 400 {
		keys, w := random(), workers[rng.IntN(len(workers))]
		want := map[string]int{}
		for ww, set := range ref {
			best := 0
			for k := PageSize; k <= len(keys); k += PageSize {
				if set[fmt.Sprint(keys[:k])] {
					best = k
				}
			}
			if best > 0 {
				want[ww] = best
			}
		}
		if got := tr.Match(keys); !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: match %v, want %v", step, got, want)
		}
		tr.Insert(keys, w)
		if ref[w] == nil {
			ref[w] = map[string]bool{}
		}
		for k := PageSize; k <= len(keys); k += PageSize {
			ref[w][fmt.Sprint(keys[:k])] = true
		}
		sizes := tr.Sizes()
		for ww, set := range ref {
			if sizes[ww] != len(set)*PageSize {
				t.Fatalf("step %d: size of %s %d, want %d", step, ww, sizes[ww], len(set)*PageSize)
			}
		}
	}
	check(t, tr)
}

func TestEvictBySize(t *testing.T) {
	tr := New(Options{MaxTokens: 256})
	shared := seq(0, 64)
	for i := range 10 {
		tr.Insert(cat(shared, seq(1000*(i+1), 64)), "w")
		check(t, tr)
		if s := tr.Sizes()["w"]; s > 256 {
			t.Fatalf("after %d inserts: %d keys, over the bound", i+1, s)
		}
	}
	// The latest prompt survives whole; the oldest is gone.
	last := cat(shared, seq(10000, 64))
	if got := tr.Match(last)["w"]; got != 128 {
		t.Fatalf("latest prompt matched %d", got)
	}
	if got := tr.Match(cat(shared, seq(1000, 64)))["w"]; got != 64 {
		t.Fatalf("oldest prompt matched %d, want only the shared part", got)
	}
	// Another worker's entries are not its to pay for.
	tr.Insert(cat(shared, seq(1000, 64)), "v")
	if s := tr.Sizes(); s["v"] != 128 || s["w"] > 256 {
		t.Fatalf("sizes %v", s)
	}
	check(t, tr)
}

func TestEvictByAge(t *testing.T) {
	now := time.Unix(0, 0)
	tr := New(Options{MaxAge: time.Minute, Now: func() time.Time { return now }})
	tr.Insert(seq(0, 64), "old")
	tr.Insert(seq(0, 32), "kept") // shares the first node with "old"
	now = now.Add(40 * time.Second)
	tr.Insert(seq(500, 32), "kept")
	now = now.Add(30 * time.Second) // "old" is 70 s old, the first "kept" too
	tr.Insert(seq(900, 32), "new")
	check(t, tr)
	if s := tr.Sizes(); s["old"] != 0 || s["kept"] != 32 || s["new"] != 32 {
		t.Fatalf("sizes after the sweep %v", s)
	}
	if got := tr.Match(seq(0, 64)); len(got) != 0 {
		t.Fatalf("aged entries still match: %v", got)
	}
	// A sweep runs at most every SweepInterval.
	now = now.Add(SweepInterval - time.Second)
	tr.Insert(seq(700, 16), "new")
	now = now.Add(2 * time.Minute)
	if got := tr.Match(seq(500, 32)); got["kept"] != 32 {
		t.Fatal("matching must not sweep")
	}
	tr.Insert(seq(700, 16), "new")
	if got := tr.Match(seq(500, 32)); len(got) != 0 {
		t.Fatalf("after the next sweep: %v", got)
	}
	check(t, tr)
}

func TestForget(t *testing.T) {
	tr := New(Options{})
	tr.Insert(seq(0, 64), "a")
	tr.Insert(cat(seq(0, 32), seq(100, 32)), "b")
	tr.Forget("a")
	tr.Forget("nobody")
	check(t, tr)
	if got := tr.Match(seq(0, 64)); !reflect.DeepEqual(got, map[string]int{"b": 32}) {
		t.Fatalf("after forget: %v", got)
	}
	if n := tr.Nodes(); n != 2 {
		t.Fatalf("%d nodes left, want 2", n)
	}
	tr.Insert(seq(0, 16), "c") // reuses a's id
	if got := tr.Sizes(); !reflect.DeepEqual(got, map[string]int{"b": 64, "c": 16}) {
		t.Fatalf("sizes %v", got)
	}
	tr.Forget("b")
	tr.Forget("c")
	if tr.Nodes() != 0 || len(tr.Sizes()) != 0 {
		t.Fatalf("not empty: %d nodes", tr.Nodes())
	}
	check(t, tr)
}

func TestMatchInsert(t *testing.T) {
	tr := New(Options{})
	tr.Insert(seq(0, 32), "a")
	w, ok := tr.MatchInsert(seq(0, 48), func(m, _ map[string]int) (string, bool) {
		if m["a"] != 32 {
			t.Fatalf("matches %v", m)
		}
		return "b", true
	})
	if w != "b" || !ok || tr.Sizes()["b"] != 48 {
		t.Fatalf("%s %v %v", w, ok, tr.Sizes())
	}
	if _, ok := tr.MatchInsert(seq(900, 32), func(_, _ map[string]int) (string, bool) { return "", false }); ok || tr.Sizes()[""] != 0 {
		t.Fatal("declined choice recorded")
	}
	check(t, tr)
}

func TestConcurrent(t *testing.T) {
	tr := New(Options{MaxTokens: 512})
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for range 300 {
				keys := cat(seq(0, 16*rng.IntN(3)), seq(rng.IntN(8)*100, 16*rng.IntN(5)))
				w := fmt.Sprint("w", rng.IntN(4))
				switch rng.IntN(10) {
				case 0:
					tr.Forget(w)
				case 1:
					tr.Insert(keys, w)
				default:
					tr.MatchInsert(keys, func(_, _ map[string]int) (string, bool) { return w, true })
				}
				tr.Match(keys)
			}
		})
	}
	wg.Wait()
	check(t, tr)
}
