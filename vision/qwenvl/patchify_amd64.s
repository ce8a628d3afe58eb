//go:build amd64 && !purego

#include "textflag.h"

// Eight packed RGB pixels (24 bytes) arrive as dwords 0-5 of a register;
// this order puts pixels 0-3 (dwords 0-2) in the low lane and pixels 4-7
// (dwords 3-5) in the high lane, each at the lane's first 12 bytes.
DATA splitIdx<>+0(SB)/4, $0
DATA splitIdx<>+4(SB)/4, $1
DATA splitIdx<>+8(SB)/4, $2
DATA splitIdx<>+12(SB)/4, $0
DATA splitIdx<>+16(SB)/4, $3
DATA splitIdx<>+20(SB)/4, $4
DATA splitIdx<>+24(SB)/4, $5
DATA splitIdx<>+28(SB)/4, $0
GLOBL splitIdx<>(SB), RODATA|NOPTR, $32

// In-lane byte shuffles that zero-extend one channel of a lane's four
// pixels to dwords: byte 3i+c goes to dword i, 0x80 clears a byte.
DATA shufR<>+0(SB)/8, $0x8080800380808000
DATA shufR<>+8(SB)/8, $0x8080800980808006
DATA shufR<>+16(SB)/8, $0x8080800380808000
DATA shufR<>+24(SB)/8, $0x8080800980808006
GLOBL shufR<>(SB), RODATA|NOPTR, $32

DATA shufG<>+0(SB)/8, $0x8080800480808001
DATA shufG<>+8(SB)/8, $0x8080800A80808007
DATA shufG<>+16(SB)/8, $0x8080800480808001
DATA shufG<>+24(SB)/8, $0x8080800A80808007
GLOBL shufG<>(SB), RODATA|NOPTR, $32

DATA shufB<>+0(SB)/8, $0x8080800580808002
DATA shufB<>+8(SB)/8, $0x8080800B80808008
DATA shufB<>+16(SB)/8, $0x8080800580808002
DATA shufB<>+24(SB)/8, $0x8080800B80808008
GLOBL shufB<>(SB), RODATA|NOPTR, $32

// LOADIDX reads the eight pixels at R13 (exactly 24 bytes) and leaves the
// table indices of their R, G and B samples as dwords in Y1, Y2, Y3.
#define LOADIDX \
	VMOVDQU (R13), X0 \
	VMOVQ 16(R13), X1 \
	VINSERTI128 $1, X1, Y0, Y0 \
	VPERMD Y0, Y15, Y0 \
	VPSHUFB Y14, Y0, Y1 \
	VPSHUFB Y13, Y0, Y2 \
	VPSHUFB Y12, Y0, Y3

// GATHER looks the indices up in the three channel tables at R8 (256
// dwords each): Y5, Y6, Y7 get the entries of R, G and B.
#define GATHER \
	VPCMPEQD Y4, Y4, Y4 \
	VPXOR Y5, Y5, Y5 \
	VPGATHERDD Y4, (R8)(Y1*4), Y5 \
	VPCMPEQD Y4, Y4, Y4 \
	VPXOR Y6, Y6, Y6 \
	VPGATHERDD Y4, 1024(R8)(Y2*4), Y6 \
	VPCMPEQD Y4, Y4, Y4 \
	VPXOR Y7, Y7, Y7 \
	VPGATHERDD Y4, 2048(R8)(Y3*4), Y7

// SETUP loads the arguments (both kernels share the frame layout) and the
// shuffle constants; R10 counts the patch rows left.
#define SETUP \
	MOVQ dst+0(FP), DI \
	MOVQ src+8(FP), SI \
	MOVQ stride+16(FP), AX \
	MOVQ p+24(FP), BX \
	MOVQ chanStride+32(FP), CX \
	MOVQ copies+40(FP), DX \
	MOVQ copyStride+48(FP), R9 \
	MOVQ lut+56(FP), R8 \
	VMOVDQU splitIdx<>(SB), Y15 \
	VMOVDQU shufR<>(SB), Y14 \
	VMOVDQU shufG<>(SB), Y13 \
	VMOVDQU shufB<>(SB), Y12 \
	MOVQ BX, R10

// NEXTX clamps the pixel offset R11 of the next group of eight to p-8 (the
// last group of a row overlaps the previous one when p is not a multiple
// of 8) and points R13 at its first source byte.
#define NEXTX \
	MOVQ BX, R12 \
	SUBQ $8, R12 \
	CMPQ R11, R12 \
	CMOVQGT R12, R11 \
	LEAQ (R11)(R11*2), R13 \
	ADDQ SI, R13

// func lutPatch32(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, lut *[3][256]uint32)
TEXT ·lutPatch32(SB), NOSPLIT, $0-64
	SETUP

row32:
	XORQ R11, R11

chunk32:
	NEXTX
	LOADIDX
	GATHER
	LEAQ (DI)(R11*4), R13
	MOVQ DX, R12

copy32:
	VMOVDQU Y5, (R13)
	VMOVDQU Y6, (R13)(CX*1)
	VMOVDQU Y7, (R13)(CX*2)
	ADDQ R9, R13
	DECQ R12
	JNZ  copy32
	ADDQ $8, R11
	CMPQ R11, BX
	JLT  chunk32
	ADDQ AX, SI
	LEAQ (DI)(BX*4), DI
	DECQ R10
	JNZ  row32
	VZEROUPPER
	RET

// func lutPatch16(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, lut *[3][256]uint32)
// The entries fit in 16 bits: each register of eight dwords is packed to
// eight words (an in-lane pack, then the two lanes' low halves joined).
TEXT ·lutPatch16(SB), NOSPLIT, $0-64
	SETUP

row16:
	XORQ R11, R11

chunk16:
	NEXTX
	LOADIDX
	GATHER
	VPACKUSDW Y5, Y5, Y5
	VPERMQ $0x08, Y5, Y5
	VPACKUSDW Y6, Y6, Y6
	VPERMQ $0x08, Y6, Y6
	VPACKUSDW Y7, Y7, Y7
	VPERMQ $0x08, Y7, Y7
	LEAQ (DI)(R11*2), R13
	MOVQ DX, R12

copy16:
	VMOVDQU X5, (R13)
	VMOVDQU X6, (R13)(CX*1)
	VMOVDQU X7, (R13)(CX*2)
	ADDQ R9, R13
	DECQ R12
	JNZ  copy16
	ADDQ $8, R11
	CMPQ R11, BX
	JLT  chunk16
	ADDQ AX, SI
	LEAQ (DI)(BX*2), DI
	DECQ R10
	JNZ  row16
	VZEROUPPER
	RET
