//go:build !linux

package tensormem

// Alloc returns a zeroed buffer of exactly n bytes from the Go heap, where
// anonymous mappings are not used.
func (a *Allocator) Alloc(n int) ([]byte, error) { return make([]byte, n), nil }

// Reuse is Alloc where anonymous mappings are not used.
func (a *Allocator) Reuse(n int) ([]byte, error) { return make([]byte, n), nil }

// Free leaves b to the garbage collector.
func (a *Allocator) Free(b []byte) {}

// Close has nothing to release.
func (a *Allocator) Close() {}

func adviseHugePages([]byte) {}
