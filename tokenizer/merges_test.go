package tokenizer

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveMerge is the textbook BPE loop, the reference for mergeAll: find the
// lowest-ranked adjacent pair (leftmost among equals) by looking every pair
// up, merge it, repeat.
func naiveMerge(t *mergeTable, syms []uint32) []uint32 {
	syms = slices.Clone(syms)
	for {
		best, br := -1, noRank
		var bid uint32
		for i := 0; i+1 < len(syms); i++ {
			if v, ok := t.get(syms[i], syms[i+1]); ok && v.rank < br {
				best, br, bid = i, v.rank, v.id
			}
		}
		if best < 0 {
			return syms
		}
		syms[best] = bid
		syms = slices.Delete(syms, best+1, best+2)
	}
}

func TestMergeAllMatchesNaive(t *testing.T) {
	tk := loadQwen3(t)
	m := tk.model
	r := rand.New(rand.NewPCG(3, 4))
	var words []string
	for _, e := range corpus(t) {
		words = append(words, e.Text)
	}
	// Random words from a small alphabet make many equal-rank ties.
	alpha := []string{"a", "b", "e", "r", " ", "ab", "er", "中", "\n", "0"}
	for i := 0; i < 400; i++ {
		n := r.IntN(400)
		w := ""
		for j := 0; j < n; j++ {
			w += alpha[r.IntN(len(alpha))]
		}
		words = append(words, w)
	}
	for _, w := range words {
		if w == "" {
			continue
		}
		var syms []uint32
		for i := 0; i < len(w); i++ {
			syms = append(syms, m.byteIDs[w[i]])
		}
		want := naiveMerge(m.merges, syms)
		if got := m.merges.mergeAll(slices.Clone(syms)); !slices.Equal(got, want) {
			t.Fatalf("mergeAll(%q) = %v, want %v", w, got, want)
		}
		if len(syms) >= 2 {
			if got := m.merges.mergeLong(slices.Clone(syms)); !slices.Equal(got, want) {
				t.Fatalf("mergeLong(%q) = %v, want %v", w, got, want)
			}
			if got := m.merges.mergeAllSmall(slices.Clone(syms)); !slices.Equal(got, want) {
				t.Fatalf("mergeAllSmall(%q) = %v, want %v", w, got, want)
			}
		}
	}
}

func TestMergeTable(t *testing.T) {
	mt := newMergeTable(3)
	mt.put(1, 2, mergeVal{rank: 0, id: 10})
	mt.put(2, 1, mergeVal{rank: 1, id: 11})
	mt.put(1, 2, mergeVal{rank: 5, id: 12}) // a later duplicate wins, as in tokenizers
	if v, ok := mt.get(1, 2); !ok || v != (mergeVal{5, 12}) {
		t.Errorf("get(1,2) = %v %v", v, ok)
	}
	if v, ok := mt.get(2, 1); !ok || v != (mergeVal{1, 11}) {
		t.Errorf("get(2,1) = %v %v", v, ok)
	}
	if _, ok := mt.get(2, 2); ok {
		t.Error("get(2,2) found a merge")
	}
}
