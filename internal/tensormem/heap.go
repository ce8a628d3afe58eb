package tensormem

import (
	"runtime"
	"sync"
)

// warmHeapMax bounds the memory WarmHeap prepares.
const warmHeapMax = 512 << 20

// WarmHeap prepares n bytes (at most 512 MiB) of free Go heap backed by
// transparent huge pages. A one-shot command otherwise meets every decoded
// and resized image with fresh 4 KiB pages — tens of thousands of page
// faults that cost as much CPU as the JPEG decoding itself. The block is
// touched once (a few hundred huge-page faults), then dropped and
// collected, and the images allocated next reuse its pages. A long-running
// server reuses its heap anyway and needs none of this. Below 4 MiB it does
// nothing.
func WarmHeap(n int) {
	n = min(n, warmHeapMax)
	if n < 2*hugePage {
		return
	}
	b := make([]byte, n+hugePage)
	off := 0
	if r := addrMod(b, hugePage); r != 0 {
		off = hugePage - r
	}
	adviseHugePages(b[off : off+n/hugePage*hugePage])
	// Touch it from every core: the kernel zeroes the pages in parallel.
	parts := runtime.GOMAXPROCS(0)
	step := (len(b)/parts + hugePage - 1) / hugePage * hugePage
	var wg sync.WaitGroup
	for lo := 0; lo < len(b); lo += step {
		wg.Go(func() {
			for i := lo; i < min(lo+step, len(b)); i += 4096 {
				b[i] = 0
			}
		})
	}
	wg.Wait()
	b = nil
	runtime.GC()
}
