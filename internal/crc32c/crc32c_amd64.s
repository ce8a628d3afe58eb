//go:build amd64 && !purego

#include "textflag.h"

// Folding constants. Folding a 16-byte lane forward by d bytes multiplies
// its low quadword (the earlier bytes, the higher powers of x in CRC-32C's
// reflected bit order) by x^(8d+64) and its high quadword by x^(8d), modulo
// P = 0x1EDC6F41 (reflected 0x82F63B78). The constants are x^(8d+32) and
// x^(8d-32) mod P, bit-reflected and shifted left by one: the product of a
// reflected quadword and such a 33-bit reflected constant, read as a
// reflected 128-bit lane, carries the remaining factor x^32.
// TestFoldConstants recomputes every literal below from P.

// d = 256: each of the four 64-byte accumulators onto the bytes 256
// further on, past the other three.
DATA k256<>+0(SB)/8, $0x00000000dcb17aa4 // x^2080 mod P
DATA k256<>+8(SB)/8, $0x00000000b9e02b86 // x^2016 mod P
GLOBL k256<>(SB), RODATA|NOPTR, $16

// d = 192, 128 and 64: the first three accumulators onto the fourth, and
// the one accumulator left onto each further 64 bytes.
DATA k192<>+0(SB)/8, $0x00000000a87ab8a8 // x^1568 mod P
DATA k192<>+8(SB)/8, $0x00000000ab7aff2a // x^1504 mod P
GLOBL k192<>(SB), RODATA|NOPTR, $16

DATA k128<>+0(SB)/8, $0x000000006992cea2 // x^1056 mod P
DATA k128<>+8(SB)/8, $0x000000000d3b6092 // x^992 mod P
GLOBL k128<>(SB), RODATA|NOPTR, $16

DATA k64<>+0(SB)/8, $0x00000000740eef02 // x^544 mod P
DATA k64<>+8(SB)/8, $0x000000009e4addf8 // x^480 mod P
GLOBL k64<>(SB), RODATA|NOPTR, $16

// d = 48, 32, 16 and none: the lanes of the one accumulator onto its last
// lane, one pair of constants per lane. The last lane's zeros drop its
// products, and the lane itself is added apart.
DATA kLanes<>+0(SB)/8, $0x000000001c291d04  // x^416 mod P
DATA kLanes<>+8(SB)/8, $0x00000001d82c63da  // x^352 mod P
DATA kLanes<>+16(SB)/8, $0x00000001384aa63a // x^288 mod P
DATA kLanes<>+24(SB)/8, $0x00000000ba4fc28e // x^224 mod P
DATA kLanes<>+32(SB)/8, $0x00000000f20c0dfe // x^160 mod P
DATA kLanes<>+40(SB)/8, $0x000000014cd00bd6 // x^96 mod P
DATA kLanes<>+48(SB)/8, $0
DATA kLanes<>+56(SB)/8, $0
GLOBL kLanes<>(SB), RODATA|NOPTR, $64

// func foldAVX512(crc uint32, p []byte) uint32
//
// CRC-32C is linear, so the state crc enters as an xor into the first four
// bytes and the folding starts from zero. Folding keeps the invariant that
// the accumulators, taken as the message's last bytes so far, are congruent
// modulo P to all bytes read, so their 16-byte remainder's CRC, computed
// with the CRC32 instruction from state zero, is the state after p. Four
// accumulators keep four independent multiply chains in flight: one
// accumulator would wait on the multiplier's latency at every step.
TEXT ·foldAVX512(SB), NOSPLIT, $0-36
	MOVL crc+0(FP), AX
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX

	VMOVDQU64 0(SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQU64 192(SI), Z3
	VMOVD     AX, X4 // zeroes the rest of Z4
	VPXORQ    Z4, Z0, Z0
	ADDQ      $256, SI
	SUBQ      $256, CX

	VBROADCASTI32X4 k256<>(SB), Z8

loop256:
	CMPQ CX, $256
	JB   reduce4
	VPCLMULQDQ $0x00, Z8, Z0, Z4
	VPCLMULQDQ $0x11, Z8, Z0, Z0
	VPCLMULQDQ $0x00, Z8, Z1, Z5
	VPCLMULQDQ $0x11, Z8, Z1, Z1
	VPCLMULQDQ $0x00, Z8, Z2, Z6
	VPCLMULQDQ $0x11, Z8, Z2, Z2
	VPCLMULQDQ $0x00, Z8, Z3, Z7
	VPCLMULQDQ $0x11, Z8, Z3, Z3
	VPTERNLOGD $0x96, 0(SI), Z4, Z0 // Z0 ^= Z4 ^ next bytes
	VPTERNLOGD $0x96, 64(SI), Z5, Z1
	VPTERNLOGD $0x96, 128(SI), Z6, Z2
	VPTERNLOGD $0x96, 192(SI), Z7, Z3
	ADDQ $256, SI
	SUBQ $256, CX
	JMP  loop256

reduce4:
	VBROADCASTI32X4 k192<>(SB), Z8
	VBROADCASTI32X4 k128<>(SB), Z9
	VBROADCASTI32X4 k64<>(SB), Z10
	VPCLMULQDQ $0x00, Z8, Z0, Z4
	VPCLMULQDQ $0x11, Z8, Z0, Z0
	VPTERNLOGD $0x96, Z4, Z0, Z3
	VPCLMULQDQ $0x00, Z9, Z1, Z5
	VPCLMULQDQ $0x11, Z9, Z1, Z1
	VPTERNLOGD $0x96, Z5, Z1, Z3
	VPCLMULQDQ $0x00, Z10, Z2, Z6
	VPCLMULQDQ $0x11, Z10, Z2, Z2
	VPTERNLOGD $0x96, Z6, Z2, Z3

loop64:
	CMPQ CX, $64
	JB   reduceLanes
	VPCLMULQDQ $0x00, Z10, Z3, Z4
	VPCLMULQDQ $0x11, Z10, Z3, Z5
	VMOVDQU64  0(SI), Z3
	VPTERNLOGD $0x96, Z4, Z5, Z3
	ADDQ $64, SI
	SUBQ $64, CX
	JMP  loop64

reduceLanes:
	VMOVDQU64     kLanes<>(SB), Z8
	VPCLMULQDQ    $0x00, Z8, Z3, Z4
	VPCLMULQDQ    $0x11, Z8, Z3, Z5
	VEXTRACTI32X4 $3, Z3, X6 // zeroes the rest of Z6
	VPTERNLOGD    $0x96, Z4, Z5, Z6
	VEXTRACTI64X4 $1, Z6, Y7
	VPXORQ        Y7, Y6, Y6
	VEXTRACTI32X4 $1, Y6, X7
	VPXORQ        X7, X6, X6

	VMOVQ   X6, AX
	VPEXTRQ $1, X6, BX
	XORL    DX, DX
	CRC32Q  AX, DX
	CRC32Q  BX, DX
	MOVL    DX, ret+32(FP)
	VZEROUPPER
	RET
