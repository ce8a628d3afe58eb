//go:build !amd64 || purego

package resample

const haveAsm = false

// hpass filters one row horizontally (see hpassGo); the portable loop
// needs no scratch.
func hpass(dst, src []uint8, t *table, _ []uint8) { hpassGo(dst, src, t, 0, t.nOut) }

// vrow combines rows vertically (see vrowGo).
func vrow(dst []uint8, rows [][]uint8, w []int32, acc []int32) { vrowGo(dst, rows, w, acc) }
