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

// A freed buffer comes back from Reuse for a size it fits, never from
// Alloc, and a kept buffer that does not fit is unmapped, not kept.
func TestReuse(t *testing.T) {
	a := Allocator{Keep: 1}
	defer a.Close()
	n := 3*hugePage + 5
	b, err := a.Reuse(n)
	if err != nil {
		t.Fatal(err)
	}
	if addrMod(b, hugePage) != 0 {
		t.Error("a new buffer is not aligned to a huge page")
	}
	b[0], b[n-1] = 7, 9
	first := &b[0]
	a.Free(b)
	if len(a.kept) != 1 {
		t.Fatalf("%d buffers kept, want 1", len(a.kept))
	}
	c, err := a.Reuse(n - 100)
	if err != nil {
		t.Fatal(err)
	}
	if &c[0] != first || len(c) != n-100 || c[0] != 7 {
		t.Error("Reuse did not hand out the kept buffer")
	}
	d, err := a.Reuse(n) // nothing kept now: a new mapping
	if err != nil {
		t.Fatal(err)
	}
	a.Free(c)
	a.Free(d) // Keep is 1: unmapped
	if len(a.kept) != 1 || len(a.maps) != 0 {
		t.Fatalf("%d kept, %d live after freeing both", len(a.kept), len(a.maps))
	}
	z, err := a.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	if z[0] != 0 || z[n-100-1] != 0 || len(a.kept) != 0 {
		t.Error("Alloc handed out a kept buffer or kept it")
	}
	a.Free(z)
	small, err := a.Reuse(hugePage / 2) // z's mapping is far larger
	if err != nil {
		t.Fatal(err)
	}
	if len(a.kept) != 0 {
		t.Error("a kept buffer that does not fit is still kept")
	}
	a.Free(small)
}
