package prefixtree

import (
	"errors"
	"testing"
)

// FuzzKeys: any spans over any ids give keys of the ids' length or
// ErrBadPrompt; the positions outside the spans keep their ids.
func FuzzKeys(f *testing.F) {
	f.Add(20, 2, 5, 9, 3)
	f.Add(4, 3, 2, 0, 1)
	f.Add(0, 0, 0, 0, 0)
	f.Add(16, -1, 4, 4, 4)
	f.Add(16, 1, int(^uint(0)>>1), 0, 0) // offset + length overflows
	f.Fuzz(func(t *testing.T, n, off1, len1, off2, len2 int) {
		if n < 0 || n > 1<<12 {
			return
		}
		ids := make([]uint32, n)
		for i := range ids {
			ids[i] = uint32(i * 7)
		}
		p := Prompt{IDs: ids, Media: []Span{{Offset: off1, Length: len1, Hash: [32]byte{1}}, {Offset: off2, Length: len2, Hash: [32]byte{2}}}}
		keys, err := Keys(p)
		if err != nil {
			if !errors.Is(err, ErrBadPrompt) {
				t.Fatalf("error %v", err)
			}
			return
		}
		if len(keys) != n {
			t.Fatalf("%d keys for %d ids", len(keys), n)
		}
		in := func(i int, s Span) bool { return i >= s.Offset && i < s.Offset+s.Length }
		for i, k := range keys {
			if !in(i, p.Media[0]) && !in(i, p.Media[1]) && k != uint64(ids[i]) {
				t.Fatalf("key %d changed outside the spans", i)
			}
		}
		// A tree takes them.
		tr := New(Options{})
		tr.Insert(keys, "w")
		if m := tr.Match(keys)["w"]; m != n/PageSize*PageSize {
			t.Fatalf("matched %d of %d", m, n)
		}
	})
}
