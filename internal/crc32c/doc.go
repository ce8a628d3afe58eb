// Package crc32c answers what the CRC-32C (Castagnoli) checksum of a byte
// stream is, with the values of hash/crc32 and its Castagnoli table, at the
// speed of the CPU's widest carry-less multiplication.
//
// hash/crc32 computes CRC-32C with the SSE4.2 CRC32 instruction, three
// streams at a time, at most 8 bytes per cycle. On CPUs that multiply
// 512-bit registers carry-lessly (VPCLMULQDQ with AVX-512), Update instead
// folds the bulk of a buffer 256 bytes per step into four 512-bit
// accumulators, about twice as fast, and reduces them to 16 bytes whose
// CRC the CRC32 instruction finishes; buffers shorter than 256 bytes and
// the last len(p) mod 64 bytes go to hash/crc32. Elsewhere, and in purego
// builds, Update is hash/crc32.
//
// Results are exact: equal to hash/crc32's for every input, on every CPU
// and build. Update is safe for concurrent use; a hash from New, like any
// hash.Hash, is not.
package crc32c
