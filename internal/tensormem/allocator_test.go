package tensormem

import (
	"sync"
	"testing"
)

func TestAllocFree(t *testing.T) {
	var a Allocator
	for _, n := range []int{0, 1, 4095, 4097, hugePage - 1, hugePage, 3*hugePage + 5} {
		b, err := a.Alloc(n)
		if err != nil {
			t.Fatalf("Alloc(%d): %v", n, err)
		}
		if len(b) != n || cap(b) != n {
			t.Fatalf("Alloc(%d): len %d cap %d", n, len(b), cap(b))
		}
		for i := range b {
			if b[i] != 0 {
				t.Fatalf("Alloc(%d): byte %d is %d, want zeroed memory", n, i, b[i])
			}
			b[i] = byte(i)
		}
		a.Free(b)
		a.Free(b) // a second Free leaves it alone
	}
	a.Free(nil)
	a.Free(make([]byte, 10)) // not from a
}

func TestAllocConcurrent(t *testing.T) {
	var a Allocator
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				n := (g*20 + i + 1) * 1000
				b, err := a.Alloc(n)
				if err != nil {
					t.Error(err)
					return
				}
				b[0], b[n-1] = 1, 1
				a.Free(b)
			}
		})
	}
	wg.Wait()
	if len(a.maps) != 0 {
		t.Errorf("%d mappings left after every buffer was freed", len(a.maps))
	}
}

func TestWarmHeap(t *testing.T) {
	WarmHeap(0)
	WarmHeap(8 << 20)
	WarmHeap(1 << 30) // bounded to warmHeapMax
}
