//go:build !linux

package main

// mapAlloc allocates on the Go heap where anonymous mappings are not used.
func mapAlloc(n int) ([]byte, error) { return make([]byte, n), nil }

func mapFree([]byte) {}

func adviseHugePages([]byte) {}
