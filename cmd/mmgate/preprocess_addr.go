package main

import "unsafe"

// addrMod returns the address of b[0] modulo align (a power of two).
func addrMod(b []byte, align int) int {
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(b))) & uintptr(align-1))
}
