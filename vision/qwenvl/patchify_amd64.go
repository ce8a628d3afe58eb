//go:build amd64 && !purego

package qwenvl

import "golang.org/x/sys/cpu"

// haveSIMD reports whether the AVX2 patch kernels can run on this CPU.
func haveSIMD() bool { return cpu.X86.HasAVX2 }

// lutPatch32 writes one patch (p rows of p pixels, the first at src, rows
// stride bytes apart) as 4-byte table entries: channel c of pixel (py, px)
// becomes lut[c][v] at dst + c·chanStride + t·copyStride + (py·p + px)·4 for
// each copy t < copies. p ≥ 8 and copies ≥ 1; nothing is bounds checked.
//
//go:noescape
func lutPatch32(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, lut *[3][256]uint32)

// lutPatch16 is lutPatch32 writing 2-byte elements (dst offsets
// (py·p + px)·2) from a table whose entries are below 1<<16.
//
//go:noescape
func lutPatch16(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, lut *[3][256]uint32)
