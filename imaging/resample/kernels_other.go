//go:build !amd64 || purego

package resample

const haveAsm = false

// hpass filters one row horizontally (see hpassGo).
func hpass(dst, src []uint8, t *table) { hpassGo(dst, src, t, 0, t.nOut) }

// vrow combines rows vertically (see vrowGo).
func vrow(dst []uint8, rows [][]uint8, w []int32, acc []int32) { vrowGo(dst, rows, w, acc) }
