//go:build amd64 && !purego

package crc32c

import "golang.org/x/sys/cpu"

// foldMin is the shortest buffer worth folding: below four accumulators'
// worth the fixed cost of the reduction outweighs what the folding saves
// over hash/crc32.
const foldMin = 256

// hasFoldAVX512 reports whether foldAVX512 can run on this CPU.
func hasFoldAVX512() bool {
	return cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512BW &&
		cpu.X86.HasAVX512VPCLMULQDQ && cpu.X86.HasSSE42
}

// foldAVX512 returns the raw CRC-32C state (not complemented, as the CRC32
// instruction keeps it) after the bytes of p starting from state crc.
// len(p) is at least 256 and a multiple of 64.
//
//go:noescape
func foldAVX512(crc uint32, p []byte) uint32

// fold consumes the longest prefix of p whose length is a multiple of 64
// when the CPU can fold it, and returns the checksum after it and the rest
// of p.
func fold(crc uint32, p []byte) (uint32, []byte) {
	if len(p) < foldMin || !hasFoldAVX512() {
		return crc, p
	}
	n := len(p) &^ 63
	return ^foldAVX512(^crc, p[:n]), p[n:]
}
