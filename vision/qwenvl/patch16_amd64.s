//go:build amd64 && !purego

#include "textflag.h"

// The offsets of tables16's fields (patchify_simd.go).
#define LO 0
#define HI 768
#define IDX 1536
#define ROWS 1728
#define LOAD 1760
#define ONE 1768
#define TWO 1776

// ROW reads one source row at reg (3p bytes, masked by K1) and moves its
// R, G and B samples into the bytes kmask selects of Z4, Z5 and Z6, at
// the places the VPERMB indices Z29, Z30, Z31 give them.
#define ROW(reg, kmask) \
	VMOVDQU8.Z (reg), K1, Z0 \
	VPERMB Z0, Z29, kmask, Z4 \
	VPERMB Z0, Z30, kmask, Z5 \
	VPERMB Z0, Z31, kmask, Z6

// LUT16 looks the 64 byte samples of idx up in one channel's 256-entry
// tables of low and high bytes at R8+lo and R8+hi: VPERMT2B reads 128
// entries at a time, the sample's top bit (K6) chooses between the two
// halves. The words, low byte first, go to l (the bytes at places 0-7 of
// each 16-byte lane of idx) and h (places 8-15).
#define LUT16(idx, lo, hi, l, h) \
	VPMOVB2M idx, K6 \
	VMOVDQU64 (lo)(R8), Z10 \
	VPERMT2B (lo+64)(R8), idx, Z10 \
	VMOVDQU64 (lo+128)(R8), Z11 \
	VPERMT2B (lo+192)(R8), idx, Z11 \
	VMOVDQU8 Z11, K6, Z10 \
	VMOVDQU64 (hi)(R8), Z12 \
	VPERMT2B (hi+64)(R8), idx, Z12 \
	VMOVDQU64 (hi+128)(R8), Z13 \
	VPERMT2B (hi+192)(R8), idx, Z13 \
	VMOVDQU8 Z13, K6, Z12 \
	VPUNPCKLBW Z12, Z10, l \
	VPUNPCKHBW Z12, Z10, h

// LUTS looks up the three channels: R into Z7/Z8, G into Z14/Z15, B into
// Z16/Z17.
#define LUTS \
	LUT16(Z4, LO, HI, Z7, Z8) \
	LUT16(Z5, LO+256, HI+256, Z14, Z15) \
	LUT16(Z6, LO+512, HI+512, Z16, Z17)

// STOREL stores the words of the group's first two rows (masked by K7) to
// the three channel planes of the copy at R13.
#define STOREL \
	VMOVDQU16 Z7, K7, (R13) \
	VMOVDQU16 Z14, K7, (R13)(CX*1) \
	VMOVDQU16 Z16, K7, (R13)(CX*2)

// STOREH stores the words of the group's rows 2 and 3 (masked by kmask),
// 4p bytes after the first row, to the three channel planes of the copy
// at R13.
#define STOREH(kmask) \
	LEAQ (R13)(R14*1), R15 \
	VMOVDQU16 Z8, kmask, (R15) \
	VMOVDQU16 Z15, kmask, (R15)(CX*1) \
	VMOVDQU16 Z17, kmask, (R15)(CX*2)

// func vbmiPatch16(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, t *tables16)
//
// lutPatch's result for 2-byte entries, four patch rows at a time: each
// row's 3p source bytes are read under a mask (nothing past them), VPERMB
// sorts the samples of the four rows into one register per channel (the
// places tables16.idx and tables16.rows give them), two VPERMT2B per byte
// look the 64 samples up in the channel's tables of low and high bytes
// (kept as two 256-byte tables so that a byte permute can read them),
// and unpacking the two byte results gives the words of rows 0-1 and rows
// 2-3 in order, written with masked stores of 2p words. The last one to
// three rows of a patch take the same path with fewer rows read and
// stored. 1 ≤ p ≤ 16 and copies ≥ 1; nothing is bounds checked.
TEXT ·vbmiPatch16(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ stride+16(FP), AX
	MOVQ p+24(FP), BX
	MOVQ chanStride+32(FP), CX
	MOVQ copies+40(FP), DX
	MOVQ copyStride+48(FP), R9
	MOVQ t+56(FP), R8
	KMOVQ LOAD(R8), K1
	KMOVQ ROWS(R8), K2
	KMOVQ (ROWS+8)(R8), K3
	KMOVQ (ROWS+16)(R8), K4
	KMOVQ (ROWS+24)(R8), K5
	KMOVD TWO(R8), K7
	VMOVDQU64 IDX(R8), Z29
	VMOVDQU64 (IDX+64)(R8), Z30
	VMOVDQU64 (IDX+128)(R8), Z31
	LEAQ (BX*4), R14       // bytes of two output rows
	MOVQ BX, R10           // patch rows left

group:
	CMPQ R10, $4
	JLT  tail
	MOVQ SI, R11
	ROW(R11, K2)
	ADDQ AX, R11
	ROW(R11, K3)
	ADDQ AX, R11
	ROW(R11, K4)
	ADDQ AX, R11
	ROW(R11, K5)
	LUTS
	MOVQ DI, R13
	MOVQ DX, R12           // copies left

gcopy:
	STOREL
	STOREH(K7)
	ADDQ R9, R13
	DECQ R12
	JNZ  gcopy
	LEAQ (SI)(AX*4), SI    // four source rows on
	LEAQ (DI)(R14*2), DI   // four output rows on
	SUBQ $4, R10
	JMP  group

tail:
	TESTQ R10, R10
	JZ    done
	ROW(SI, K2)
	CMPQ  R10, $2
	JLT   tlut
	ADDQ  AX, SI
	ROW(SI, K3)
	CMPQ  R10, $3
	JLT   tlut
	ADDQ  AX, SI
	ROW(SI, K4)

tlut:
	LUTS
	KMOVD ONE(R8), K6      // one row's words
	CMPQ  R10, $1
	JNE   tstore
	KMOVD ONE(R8), K7      // the only row

tstore:
	MOVQ DI, R13
	MOVQ DX, R12

tcopy:
	STOREL
	CMPQ R10, $3
	JNE  tnext
	STOREH(K6)

tnext:
	ADDQ R9, R13
	DECQ R12
	JNZ  tcopy

done:
	VZEROUPPER
	RET
