//go:build !linux

package videoprep

func benchAlloc(n int) ([]byte, error) { return make([]byte, n), nil }

func benchFree([]byte) {}
