//go:build !amd64 || purego

package qwenvl

// haveSIMD reports whether a vector patch kernel exists: not in this build.
func haveSIMD() bool { return false }

// lutPatch32 and lutPatch16 exist only in amd64 builds; haveSIMD keeps them
// from being called here.
func lutPatch32(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, lut *[3][256]uint32) {
	panic("qwenvl: no vector kernel in this build")
}

func lutPatch16(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, lut *[3][256]uint32) {
	panic("qwenvl: no vector kernel in this build")
}
