//go:build !amd64 || purego

package qwenvl

// haveSIMD reports whether a vector patch kernel exists: not in this build.
func haveSIMD() bool { return false }

// haveVBMI reports whether the AVX-512 kernel exists: not in this build.
func haveVBMI() bool { return false }

// vbmiPatch16 exists only in amd64 builds; haveVBMI keeps it from being
// called here.
func vbmiPatch16(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, t *tables16) {
	panic("qwenvl: no vector kernel in this build")
}

// lutPatch exists only in amd64 builds; haveSIMD keeps it from being
// called here.
func lutPatch(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, lut *[3][256]uint32, es int) {
	panic("qwenvl: no vector kernel in this build")
}

// affinePatch exists only in amd64 builds, like lutPatch.
func affinePatch(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, k *affine) {
	panic("qwenvl: no vector kernel in this build")
}

// streamCopy exists only in amd64 builds; lastLevelCache keeps it from
// being called here.
func streamCopy(dst *byte, src *byte, n int) { panic("qwenvl: no vector kernel in this build") }

func storeFence() {}

// lastLevelCache is 0: this build has no streaming stores.
func lastLevelCache() int { return 0 }
