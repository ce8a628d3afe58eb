//go:build amd64 && !purego

#include "textflag.h"

// In-lane byte shuffles that zero-extend one channel of a lane's four
// pixels (12 bytes) to dwords: byte 3i+c goes to dword i, 0x80 clears a
// byte.
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

// STORE3 stores one channel register each to the three channel planes of
// the copy at R13, moves R13 to the next copy and counts it down in R12.
#define STORE3(r, g, b) \
	VMOVDQU r, (R13) \
	VMOVDQU g, (R13)(CX*1) \
	VMOVDQU b, (R13)(CX*2) \
	ADDQ R9, R13 \
	DECQ R12

// PATCHARGS loads the arguments the patch kernels share.
#define PATCHARGS \
	MOVQ dst+0(FP), DI \
	MOVQ src+8(FP), SI \
	MOVQ stride+16(FP), AX \
	MOVQ p+24(FP), BX \
	MOVQ chanStride+32(FP), CX \
	MOVQ copies+40(FP), DX \
	MOVQ copyStride+48(FP), R9

// SHUFFLES loads the three channel shuffles into Y14, Y13, Y12.
#define SHUFFLES \
	VMOVDQU shufR<>(SB), Y14 \
	VMOVDQU shufG<>(SB), Y13 \
	VMOVDQU shufB<>(SB), Y12

// GROUP8 moves the pixel offset R11 back to p-8 when the row has fewer
// than eight pixels left, reads the 24 source bytes of pixels R11 … R11+7
// of the row at SI (pixels 0-3 into the low lane, 4-7 into the high lane)
// and leaves their R, G and B samples as dwords in Y1, Y2 and Y3.
#define GROUP8 \
	MOVQ BX, R12 \
	SUBQ $8, R12 \
	CMPQ R11, R12 \
	CMOVQGT R12, R11 \
	LEAQ (R11)(R11*2), R13 \
	ADDQ SI, R13 \
	VMOVDQU (R13), X0 \
	VMOVQ 12(R13), X1 \
	VPINSRD $2, 20(R13), X1, X1 \
	VINSERTI128 $1, X1, Y0, Y0 \
	VPSHUFB Y14, Y0, Y1 \
	VPSHUFB Y13, Y0, Y2 \
	VPSHUFB Y12, Y0, Y3

// func lutPatch(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, lut *[3][256]uint32, es int)
//
// Per patch row, eight pixels at a time (the last eight of a row overlap
// the ones before when p is not a multiple of 8): the 24 source bytes are
// read exactly (pixels 0-3 into the low lane, 4-7 into the high lane), one
// shuffle per channel turns them into dword indices, VPGATHERDD looks them
// up in the channel's 256-entry table, and the results are stored to the
// three channel planes of every temporal copy: as dwords when es is 4, or
// packed to words when es is 2.
TEXT ·lutPatch(SB), NOSPLIT, $0-72
	PATCHARGS
	MOVQ lut+56(FP), R8
	SHUFFLES
	MOVQ BX, R10           // patch rows left

row:
	XORQ R11, R11          // pixel offset in the row

chunk:
	GROUP8
	VPCMPEQD Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPGATHERDD Y4, (R8)(Y1*4), Y5
	VPCMPEQD Y4, Y4, Y4
	VPXOR Y6, Y6, Y6
	VPGATHERDD Y4, 1024(R8)(Y2*4), Y6
	VPCMPEQD Y4, Y4, Y4
	VPXOR Y7, Y7, Y7
	VPGATHERDD Y4, 2048(R8)(Y3*4), Y7
	MOVQ R11, R13
	IMULQ es+64(FP), R13
	ADDQ DI, R13           // the group's first destination byte
	MOVQ DX, R12           // copies left
	CMPQ es+64(FP), $4
	JNE  pack

copy32:
	STORE3(Y5, Y6, Y7)
	JNZ  copy32
	JMP  next

pack:
	VPACKUSDW Y5, Y5, Y5
	VPERMQ $0x08, Y5, Y5
	VPACKUSDW Y6, Y6, Y6
	VPERMQ $0x08, Y6, Y6
	VPACKUSDW Y7, Y7, Y7
	VPERMQ $0x08, Y7, Y7

copy16:
	STORE3(X5, X6, X7)
	JNZ  copy16

next:
	ADDQ $8, R11
	CMPQ R11, BX
	JLT  chunk
	ADDQ AX, SI            // next source row
	MOVQ BX, R12
	IMULQ es+64(FP), R12
	ADDQ R12, DI           // next destination row: p elements on
	DECQ R10
	JNZ  row
	VZEROUPPER
	RET

// AFFINE turns the eight dword samples in idx into float32 values of one
// channel in out, as norm.Params.Value computes them: to float64 (exact),
// times the rescale factor Y15 in float64, to float32 (rounded to nearest
// even), minus mean, divided by std, both float32 and 32 bytes at R8+off.
// t is scratch.
#define AFFINE(idx, xidx, t, xt, out, xout, moff, soff) \
	VEXTRACTI128 $1, idx, xt \
	VCVTDQ2PD xidx, out \
	VCVTDQ2PD xt, t \
	VMULPD Y15, out, out \
	VMULPD Y15, t, t \
	VCVTPD2PSY out, xout \
	VCVTPD2PSY t, xt \
	VINSERTF128 $1, xt, out, out \
	VSUBPS moff(R8), out, out \
	VDIVPS soff(R8), out, out

// func affinePatch(dst *byte, src *uint8, stride, p, chanStride, copies, copyStride int, k *affine)
//
// lutPatch's walk and stores with float32 elements, the values computed
// (AFFINE) instead of gathered: k holds the rescale factor at 0, then
// eight copies of each channel's mean (at 8, 40, 72) and std (at 104,
// 136, 168).
TEXT ·affinePatch(SB), NOSPLIT, $0-64
	PATCHARGS
	MOVQ k+56(FP), R8
	VBROADCASTSD (R8), Y15
	SHUFFLES
	MOVQ BX, R10           // patch rows left

arow:
	XORQ R11, R11          // pixel offset in the row

achunk:
	GROUP8
	AFFINE(Y1, X1, Y4, X4, Y5, X5, 8, 104)
	AFFINE(Y2, X2, Y4, X4, Y6, X6, 40, 136)
	AFFINE(Y3, X3, Y4, X4, Y7, X7, 72, 168)
	LEAQ (DI)(R11*4), R13  // the group's first destination byte
	MOVQ DX, R12           // copies left

acopy:
	STORE3(Y5, Y6, Y7)
	JNZ  acopy
	ADDQ $8, R11
	CMPQ R11, BX
	JLT  achunk
	ADDQ AX, SI            // next source row
	LEAQ (DI)(BX*4), DI    // next destination row: p elements on
	DECQ R10
	JNZ  arow
	VZEROUPPER
	RET

// func streamCopy(dst *byte, src *byte, n int)
// Copies n bytes (a multiple of 16, dst 16-byte aligned) with streaming
// stores (MOVNTDQ), which write to memory without reading the lines into
// the caches first.
TEXT ·streamCopy(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

sloop:
	VMOVDQU (SI), X0
	VMOVNTDQ X0, (DI)
	ADDQ $16, SI
	ADDQ $16, DI
	SUBQ $16, CX
	JNZ  sloop
	RET

// func storeFence()
TEXT ·storeFence(SB), NOSPLIT, $0-0
	SFENCE
	RET
