//go:build linux

package tensormem

import "testing"

// Buffers of a huge page and more start on a huge-page boundary, and every
// buffer is tracked until it is freed.
func TestAllocMappings(t *testing.T) {
	var a Allocator
	var live [][]byte
	for _, n := range []int{1, hugePage - 1, hugePage, 5*hugePage + 3} {
		b, err := a.Alloc(n)
		if err != nil {
			t.Fatal(err)
		}
		if n >= hugePage && addrMod(b, hugePage) != 0 {
			t.Errorf("Alloc(%d) starts %d bytes past a huge-page boundary", n, addrMod(b, hugePage))
		}
		live = append(live, b)
	}
	if len(a.maps) != len(live) {
		t.Fatalf("%d mappings tracked for %d buffers", len(a.maps), len(live))
	}
	for _, b := range live {
		a.Free(b)
	}
	if len(a.maps) != 0 {
		t.Errorf("%d mappings left after Free", len(a.maps))
	}
}
