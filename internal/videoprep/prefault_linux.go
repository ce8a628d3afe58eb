//go:build linux

package videoprep

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// prefaultStep is how much of the destination one madvise call backs.
const prefaultStep = 8 << 20

// prefault backs buf with memory ahead of the frames that will fill it
// (MADV_POPULATE_WRITE, Linux 5.14 and later; elsewhere it does nothing),
// front to back, until it reaches the end or stop is closed. A fresh
// destination costs about as much CPU time in page faults (the kernel
// clears every page) as the patchify that writes it, and far more the
// first time a process touches that much memory; faulting it here, in big
// steps on a low-priority thread, takes that work out of the frames' path
// and onto CPU time the decode leaves. The contents are not touched, so it
// may run while frames are written into buf.
func prefault(buf []byte, stop <-chan struct{}) {
	page := unix.Getpagesize()
	lo := 0
	if r := int(uintptr(unsafe.Pointer(unsafe.SliceData(buf))) % uintptr(page)); r != 0 {
		lo = page - r
	}
	hi := lo + (len(buf)-lo)/page*page
	for p := lo; p < hi; p += prefaultStep {
		select {
		case <-stop:
			return
		default:
		}
		if err := unix.Madvise(buf[p:min(hi, p+prefaultStep)], unix.MADV_POPULATE_WRITE); err != nil {
			return // not supported, or memory that cannot be written ahead
		}
	}
}
