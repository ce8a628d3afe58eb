//go:build linux

package main

import (
	"sync"

	"golang.org/x/sys/unix"
)

// This file answers: where do `mmgate preprocess` tensors live? In anonymous
// private mappings, one per tensor, unmapped as soon as the tensor has been
// hashed or written, so that peak memory stays close to one tensor per image
// in flight (the Go heap would keep freed buffers until a collection).
// Tensors of 2 MiB and more are placed on 2 MiB boundaries and advised as
// transparent huge pages: a 100 MB tensor then costs about fifty page faults
// instead of twenty-five thousand.

const hugePage = 2 << 20

// mappings maps the first byte of each tensor handed out to the mapping that
// holds it, for mapFree.
var mappings sync.Map // *byte → []byte

func mapAlloc(n int) ([]byte, error) {
	if n == 0 {
		return []byte{}, nil
	}
	size := n
	if n >= hugePage {
		size = n + hugePage // room to align the start
	}
	m, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, err
	}
	b := m[:n:n]
	if n >= hugePage {
		off := 0
		if r := addrMod(m, hugePage); r != 0 {
			off = hugePage - r
		}
		length := (n + hugePage - 1) / hugePage * hugePage
		if off+length > len(m) {
			length = len(m) - off
		}
		_ = unix.Madvise(m[off:off+length], unix.MADV_HUGEPAGE) // advisory only
		b = m[off : off+n : off+n]
	}
	mappings.Store(&b[0], m)
	return b, nil
}

func mapFree(b []byte) {
	if len(b) == 0 {
		return
	}
	if m, ok := mappings.LoadAndDelete(&b[0]); ok {
		_ = unix.Munmap(m.([]byte))
	}
}

// adviseHugePages asks for transparent huge pages over b (advisory only).
func adviseHugePages(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
