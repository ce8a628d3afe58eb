//go:build amd64 && !purego

package qwenvl

import (
	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
)

// haveSIMD reports whether the AVX2 patch kernel can run on this CPU.
func haveSIMD() bool { return cpu.X86.HasAVX2 }

// haveVBMI reports whether the AVX-512 VBMI kernel for 2-byte entries
// (vbmiPatch16) can run on this CPU.
func haveVBMI() bool {
	return cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI
}

// lutPatch writes one patch (p rows of p pixels, the first at src, rows
// stride bytes apart) as table entries of es bytes (4, or 2 for entries
// below 1<<16): channel c of pixel (py, px) becomes lut[c][v] at
// dst + c·chanStride + t·copyStride + (py·p + px)·es for each copy
// t < copies. p ≥ 8 and copies ≥ 1; nothing is bounds checked.
//
//go:noescape
func lutPatch(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, lut *[3][256]uint32, es int)

// vbmiPatch16 is lutPatch for 2-byte entries, with byte permutes from the
// tables t instead of gathers; 1 ≤ p ≤ 16.
//
//go:noescape
func vbmiPatch16(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, t *tables16)

// affinePatch is lutPatch for float32 elements whose values follow k's
// arithmetic (norm.Table.Affine), computed instead of looked up.
//
//go:noescape
func affinePatch(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, k *affine)

// streamCopy copies n bytes from src to dst with streaming stores; n is a
// multiple of 16 and dst 16-byte aligned.
//
//go:noescape
func streamCopy(dst *byte, src *byte, n int)

// storeFence orders the streaming stores before everything after it
// (SFENCE), so that a tensor is complete before it is handed on.
func storeFence()

// lastLevelCache is the size of the CPU's last-level cache in bytes, 0
// when unknown.
func lastLevelCache() int { return max(cpuid.CPU.Cache.L3, 0) }
