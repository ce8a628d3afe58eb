//go:build !linux

package videoprep

// prefault does nothing outside Linux.
func prefault([]byte, <-chan struct{}) {}
