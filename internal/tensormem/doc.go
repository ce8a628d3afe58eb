// Package tensormem provides the memory a one-shot command writes large
// tensors and images into, so that its peak memory stays close to the
// tensors in flight and filling them costs few page faults.
//
// An Allocator places each tensor in an anonymous private mapping of its
// own (Linux; the Go heap elsewhere) and unmaps it on Free, at once: the Go
// heap would keep a freed buffer's pages until a later collection, while
// the next tensor is already being written. Buffers of 2 MiB and more start
// on a 2 MiB boundary and are advised as transparent huge pages: a 100 MB
// tensor then costs about fifty page faults instead of twenty-five
// thousand.
//
// WarmHeap does the same for the Go heap ahead of a burst of decoded and
// resized images.
//
// An Allocator is safe for concurrent use; so is WarmHeap, though it is
// meant to be called once, before the work starts.
package tensormem
