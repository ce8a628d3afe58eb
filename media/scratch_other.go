//go:build !unix

package media

// mapScratch allocates on the Go heap where there is no mmap.
func mapScratch(n int) ([]uint8, error) { return make([]uint8, n), nil }

func unmapScratch([]uint8) {}
