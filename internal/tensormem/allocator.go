package tensormem

import (
	"sync"
	"unsafe"
)

// hugePage is the transparent huge page size of x86-64 and of arm64 with
// 4 KiB pages.
const hugePage = 2 << 20

// Allocator hands out tensor buffers and takes them back (see the package
// documentation). Its Alloc method is an imageprep.Allocator. The zero value
// is ready to use; an Allocator must not be copied after first use.
type Allocator struct {
	// Keep is how many freed buffers are kept for Reuse (0: none).
	Keep int

	mu sync.Mutex
	// maps holds, by the first byte handed out, the mapping each live
	// buffer lives in; nil where buffers come from the Go heap.
	maps map[*byte][]byte
	// kept holds freed buffers' mappings for Reuse, at most Keep.
	kept [][]byte
}

// addrMod returns the address of b[0] modulo align (a power of two).
func addrMod(b []byte, align int) int {
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(b))) & uintptr(align-1))
}
