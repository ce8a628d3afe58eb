//go:build amd64 && !purego

#include "textflag.h"

// Dword order that undoes the in-lane interleaving of VPACKSSDW/VPACKUSWB.
DATA permIdx<>+0(SB)/4, $0
DATA permIdx<>+4(SB)/4, $4
DATA permIdx<>+8(SB)/4, $1
DATA permIdx<>+12(SB)/4, $5
DATA permIdx<>+16(SB)/4, $2
DATA permIdx<>+20(SB)/4, $6
DATA permIdx<>+24(SB)/4, $3
DATA permIdx<>+28(SB)/4, $7
GLOBL permIdx<>(SB), RODATA|NOPTR, $32

// func vrowAVX2(dst *uint8, n int, rows *[]uint8, taps int, w *int32)
// 32 samples per iteration, taps taken in pairs of rows (an odd last tap
// pairs its row with itself at weight 0). The two rows' bytes are
// interleaved into int16 pairs and multiplied-added (VPMADDWD) with the
// pair's weights split as in hpassMADD, high (w >> 12) and low (w & 4095)
// halves summed apart; then sum = (hi << 12) + lo + 1<<21, which equals
// the int32 sum modulo 2^32, an arithmetic shift by 22 and two saturating
// packs, which clamp to 0..255 exactly. The in-lane unpacks put samples
// 0-3|16-19, 4-7|20-23, 8-11|24-27 and 12-15|28-31 in the four
// accumulators, an order the in-lane packs undo.
TEXT ·vrowAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ rows+16(FP), SI
	MOVQ taps+24(FP), DX
	MOVQ w+32(FP), R8
	VPXOR Y14, Y14, Y14
	XORQ AX, AX

vloop:
	CMPQ AX, CX
	JGE  vdone
	MOVL $0x200000, R9
	VMOVD R9, X0
	VPBROADCASTD X0, Y0
	VMOVDQA Y0, Y1
	VMOVDQA Y0, Y2
	VMOVDQA Y0, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	MOVQ SI, R10
	MOVQ R8, R11
	MOVQ DX, R12

vpair:
	TESTQ R12, R12
	JZ    vstore
	MOVQ (R10), R13
	MOVL (R11), BX
	CMPQ R12, $1
	JEQ  vone
	MOVQ 24(R10), R14
	MOVL 4(R11), R9
	SUBQ $2, R12
	ADDQ $48, R10
	ADDQ $8, R11
	JMP  vbody

vone:
	MOVQ R13, R14
	XORL R9, R9
	XORQ R12, R12

vbody:
	VMOVDQU (R13)(AX*1), Y10
	VMOVDQU (R14)(AX*1), Y11
	MOVL BX, R13
	SARL $12, R13
	MOVWLZX R13, R13
	MOVL R9, R14
	SARL $12, R14
	SHLL $16, R14
	ORL  R14, R13
	ANDL $4095, BX
	ANDL $4095, R9
	SHLL $16, R9
	ORL  R9, BX
	VMOVD R13, X8
	VPBROADCASTD X8, Y8
	VMOVD BX, X9
	VPBROADCASTD X9, Y9
	VPUNPCKLBW Y11, Y10, Y12
	VPUNPCKHBW Y11, Y10, Y13
	VPUNPCKLBW Y14, Y12, Y10
	VPUNPCKHBW Y14, Y12, Y11
	VPUNPCKLBW Y14, Y13, Y12
	VPUNPCKHBW Y14, Y13, Y13
	VPMADDWD Y8, Y10, Y15
	VPADDD Y15, Y4, Y4
	VPMADDWD Y9, Y10, Y10
	VPADDD Y10, Y0, Y0
	VPMADDWD Y8, Y11, Y15
	VPADDD Y15, Y5, Y5
	VPMADDWD Y9, Y11, Y11
	VPADDD Y11, Y1, Y1
	VPMADDWD Y8, Y12, Y15
	VPADDD Y15, Y6, Y6
	VPMADDWD Y9, Y12, Y12
	VPADDD Y12, Y2, Y2
	VPMADDWD Y8, Y13, Y15
	VPADDD Y15, Y7, Y7
	VPMADDWD Y9, Y13, Y13
	VPADDD Y13, Y3, Y3
	JMP  vpair

vstore:
	VPSLLD $12, Y4, Y4
	VPSLLD $12, Y5, Y5
	VPSLLD $12, Y6, Y6
	VPSLLD $12, Y7, Y7
	VPADDD Y4, Y0, Y0
	VPADDD Y5, Y1, Y1
	VPADDD Y6, Y2, Y2
	VPADDD Y7, Y3, Y3
	VPSRAD $22, Y0, Y0
	VPSRAD $22, Y1, Y1
	VPSRAD $22, Y2, Y2
	VPSRAD $22, Y3, Y3
	VPACKSSDW Y1, Y0, Y0
	VPACKSSDW Y3, Y2, Y2
	VPACKUSWB Y2, Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	JMP  vloop

vdone:
	VZEROUPPER
	RET

// func hpassAVX2(dst *uint8, src *uint8, lo *int32, w *int32, n int, taps int)
// One output pixel per iteration: each tap loads 4 source bytes (R, G, B
// and the next pixel's R, whose lane is ignored) as four int32 lanes and
// adds them times the broadcast weight.
TEXT ·hpassAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ lo+16(FP), R8
	MOVQ w+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ taps+40(FP), DX
	MOVL $0x200000, R10
	VMOVD R10, X15
	VPBROADCASTD X15, X15

hloop:
	TESTQ CX, CX
	JZ    hdone
	MOVLQSX (R8), AX
	LEAQ (AX)(AX*2), AX
	ADDQ SI, AX
	VMOVDQA X15, X0
	VPXOR X1, X1, X1
	MOVQ DX, R12
	SHRQ $1, R12
	JZ   hone

htap2:
	VPMOVZXBD (AX), X2
	VPBROADCASTD (R9), X3
	VPMULLD X3, X2, X2
	VPADDD X2, X0, X0
	VPMOVZXBD 3(AX), X4
	VPBROADCASTD 4(R9), X5
	VPMULLD X5, X4, X4
	VPADDD X4, X1, X1
	ADDQ $6, AX
	ADDQ $8, R9
	DECQ R12
	JNZ  htap2

hone:
	TESTQ $1, DX
	JZ    hstore
	VPMOVZXBD (AX), X2
	VPBROADCASTD (R9), X3
	VPMULLD X3, X2, X2
	VPADDD X2, X0, X0
	ADDQ $4, R9

hstore:
	VPADDD X1, X0, X0
	VPSRAD $22, X0, X0
	VPACKSSDW X0, X0, X0
	VPACKUSWB X0, X0, X0
	VMOVD X0, R13
	MOVW R13, (DI)
	SHRL $16, R13
	MOVB R13, 2(DI)
	ADDQ $3, DI
	ADDQ $4, R8
	DECQ CX
	JMP  hloop

hdone:
	VZEROUPPER
	RET

// Byte shuffle for hpassMADD: from 4 pixels (12 bytes, in both 128-bit
// lanes) build int16 pairs, one per dword: (R0,R1) (R2,R3) (G0,G1) (G2,G3)
// in the low lane, (B0,B1) (B2,B3) 0 0 in the high lane.
DATA shufRGB<>+0(SB)/8, $0x8009800680038000
DATA shufRGB<>+8(SB)/8, $0x800a800780048001
DATA shufRGB<>+16(SB)/8, $0x800b800880058002
DATA shufRGB<>+24(SB)/8, $0x8080808080808080
GLOBL shufRGB<>(SB), RODATA|NOPTR, $32

// Dword order that gathers two pixels' sums after VPHADDD:
// [RA GA RB GB | BA 0 BB 0] -> [RA GA BA RB GB BB 0 0].
DATA pairIdx<>+0(SB)/4, $0
DATA pairIdx<>+4(SB)/4, $1
DATA pairIdx<>+8(SB)/4, $4
DATA pairIdx<>+12(SB)/4, $2
DATA pairIdx<>+16(SB)/4, $3
DATA pairIdx<>+20(SB)/4, $6
DATA pairIdx<>+24(SB)/4, $5
DATA pairIdx<>+28(SB)/4, $7
GLOBL pairIdx<>(SB), RODATA|NOPTR, $32

// func hpassMADD(dst *uint8, src *uint8, lo *int32, w *int16, pairs int, groups int)
// Two output pixels (A, B) per iteration. Each group of four taps loads 16
// source bytes, shuffles them into int16 pairs and multiplies-adds them
// with the broadcast high and low weight halves (VPMADDWD), accumulating
// hi and lo sums separately; then sum = (hi << 12) + lo + bias, shift by
// 22, saturating packs (the clamp to 0..255), and six bytes stored.
TEXT ·hpassMADD(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ lo+16(FP), R8
	MOVQ w+24(FP), R9
	MOVQ pairs+32(FP), CX
	MOVQ groups+40(FP), DX
	MOVQ DX, R14
	SHLQ $4, R14 // bytes of weights per pixel
	VMOVDQU shufRGB<>(SB), Y13
	VMOVDQU pairIdx<>(SB), Y12
	MOVL $0x200000, R10
	VMOVD R10, X15
	VPBROADCASTD X15, Y15

mloop:
	TESTQ CX, CX
	JZ    mdone
	MOVLQSX (R8), AX
	LEAQ (AX)(AX*2), AX
	ADDQ SI, AX
	MOVLQSX 4(R8), BX
	LEAQ (BX)(BX*2), BX
	ADDQ SI, BX
	MOVQ R9, R11
	LEAQ (R9)(R14*1), R13
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	MOVQ DX, R12

mgroup:
	VBROADCASTI128 (AX), Y2
	VPSHUFB Y13, Y2, Y2
	VPBROADCASTQ (R11), Y3
	VPBROADCASTQ 8(R11), Y4
	VPMADDWD Y3, Y2, Y3
	VPMADDWD Y4, Y2, Y4
	VPADDD Y3, Y0, Y0
	VPADDD Y4, Y1, Y1
	VBROADCASTI128 (BX), Y7
	VPSHUFB Y13, Y7, Y7
	VPBROADCASTQ (R13), Y8
	VPBROADCASTQ 8(R13), Y9
	VPMADDWD Y8, Y7, Y8
	VPMADDWD Y9, Y7, Y9
	VPADDD Y8, Y5, Y5
	VPADDD Y9, Y6, Y6
	ADDQ $12, AX
	ADDQ $12, BX
	ADDQ $16, R11
	ADDQ $16, R13
	DECQ R12
	JNZ  mgroup

	VPSLLD $12, Y0, Y0
	VPADDD Y1, Y0, Y0
	VPSLLD $12, Y5, Y5
	VPADDD Y6, Y5, Y5
	VPHADDD Y5, Y0, Y0
	VPERMD Y0, Y12, Y0
	VPADDD Y15, Y0, Y0
	VPSRAD $22, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPACKSSDW X1, X0, X0
	VPACKUSWB X0, X0, X0
	VMOVQ X0, R10
	MOVL R10, (DI)
	SHRQ $32, R10
	MOVW R10, 4(DI)
	ADDQ $6, DI
	ADDQ $8, R8
	LEAQ (R9)(R14*2), R9
	DECQ CX
	JMP  mloop

mdone:
	VZEROUPPER
	RET

// BLOCKPAIR adds taps j and j+1 of a block to the accumulators: the 24
// source bytes at pa (tap j) and at pb (tap j+1) interleaved into int16
// pairs, times the lane weight pairs at w, 96 bytes of high halves
// (w >> 12), then 96 of low halves (w & 4095), as in hpassMADD. The high
// sums go to Y8-Y10, the low ones to Y0-Y2, lanes in output order.
#define BLOCKPAIR(pa, pb, w) \
	VMOVDQU (pa), X3 \
	VMOVDQU (pb), X4 \
	VPUNPCKLBW X4, X3, X5 \
	VPUNPCKHBW X4, X3, X6 \
	VMOVQ 16(pa), X3 \
	VMOVQ 16(pb), X4 \
	VPUNPCKLBW X4, X3, X7 \
	VPMOVZXBW X5, Y5 \
	VPMOVZXBW X6, Y6 \
	VPMOVZXBW X7, Y7 \
	VPMADDWD (w), Y5, Y3 \
	VPADDD Y3, Y8, Y8 \
	VPMADDWD 32(w), Y6, Y3 \
	VPADDD Y3, Y9, Y9 \
	VPMADDWD 64(w), Y7, Y3 \
	VPADDD Y3, Y10, Y10 \
	VPMADDWD 96(w), Y5, Y5 \
	VPADDD Y5, Y0, Y0 \
	VPMADDWD 128(w), Y6, Y6 \
	VPADDD Y6, Y1, Y1 \
	VPMADDWD 160(w), Y7, Y7 \
	VPADDD Y7, Y2, Y2

// BLOCKINIT starts a block: the low sums at the bias Y15, the high at 0.
#define BLOCKINIT \
	VMOVDQA Y15, Y0 \
	VMOVDQA Y15, Y1 \
	VMOVDQA Y15, Y2 \
	VPXOR Y8, Y8, Y8 \
	VPXOR Y9, Y9, Y9 \
	VPXOR Y10, Y10, Y10

// BLOCKSTORE forms the sums (hi << 12) + lo, which equal the int32 sums
// modulo 2^32, shifts them down by 22 bits, packs them with saturation
// (which clamps to 0..255 exactly) and writes the 24 bytes to DI.
#define BLOCKSTORE \
	VPSLLD $12, Y8, Y8 \
	VPSLLD $12, Y9, Y9 \
	VPSLLD $12, Y10, Y10 \
	VPADDD Y8, Y0, Y0 \
	VPADDD Y9, Y1, Y1 \
	VPADDD Y10, Y2, Y2 \
	VPSRAD $22, Y0, Y0 \
	VPSRAD $22, Y1, Y1 \
	VPSRAD $22, Y2, Y2 \
	VPACKSSDW Y1, Y0, Y0 \
	VPACKSSDW Y2, Y2, Y2 \
	VPACKUSWB Y2, Y0, Y0 \
	VPERMD Y0, Y14, Y0 \
	VMOVDQU X0, (DI) \
	VEXTRACTI128 $1, Y0, X1 \
	VMOVQ X1, 16(DI)

// func hpassBlocks(dst *uint8, src *uint8, b0 *int32, nj *int32, w *int32, blocks int)
// Eight output pixels (24 samples) per block: tap j reads the 24
// contiguous source bytes from pixel b0+j, taps in pairs (BLOCKPAIR), an
// odd J's last tap paired with itself at weight 0.
TEXT ·hpassBlocks(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ b0+16(FP), R8
	MOVQ nj+24(FP), R9
	MOVQ w+32(FP), R10
	MOVQ blocks+40(FP), CX
	MOVL $0x200000, R11
	VMOVD R11, X15
	VPBROADCASTD X15, Y15
	VMOVDQU permIdx<>(SB), Y14

bloop:
	TESTQ CX, CX
	JZ    bdone
	MOVLQSX (R8), AX
	LEAQ (AX)(AX*2), AX
	ADDQ SI, AX
	MOVLQSX (R9), R12
	BLOCKINIT

bpair:
	CMPQ R12, $2
	JLT  blast
	LEAQ 3(AX), BX
	BLOCKPAIR(AX, BX, R10)
	ADDQ $6, AX
	ADDQ $192, R10
	SUBQ $2, R12
	JMP  bpair

blast:
	TESTQ R12, R12
	JZ    bstore
	BLOCKPAIR(AX, AX, R10)
	ADDQ $192, R10

bstore:
	BLOCKSTORE
	ADDQ $24, DI
	ADDQ $4, R8
	ADDQ $4, R9
	DECQ CX
	JMP  bloop

bdone:
	VZEROUPPER
	RET

// func hpassBlocks2(dst *uint8, split *uint8, off0 *int32, off1 *int32, nj *int32, w *int32, blocks int)
// The stride-2 block form over a split row: as hpassBlocks, the pair's
// two taps read from two pointers (the two parities), each advancing one
// pixel per pair.
TEXT ·hpassBlocks2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ split+8(FP), SI
	MOVQ off0+16(FP), R8
	MOVQ off1+24(FP), R13
	MOVQ nj+32(FP), R9
	MOVQ w+40(FP), R10
	MOVQ blocks+48(FP), CX
	MOVL $0x200000, R11
	VMOVD R11, X15
	VPBROADCASTD X15, Y15
	VMOVDQU permIdx<>(SB), Y14

b2loop:
	TESTQ CX, CX
	JZ    b2done
	MOVLQSX (R8), AX
	ADDQ SI, AX
	MOVLQSX (R13), BX
	ADDQ SI, BX
	MOVLQSX (R9), R12
	BLOCKINIT

b2pair:
	CMPQ R12, $2
	JLT  b2last
	BLOCKPAIR(AX, BX, R10)
	ADDQ $3, AX
	ADDQ $3, BX
	ADDQ $192, R10
	SUBQ $2, R12
	JMP  b2pair

b2last:
	TESTQ R12, R12
	JZ    b2store
	BLOCKPAIR(AX, AX, R10)
	ADDQ $192, R10

b2store:
	BLOCKSTORE
	ADDQ $24, DI
	ADDQ $4, R8
	ADDQ $4, R13
	ADDQ $4, R9
	DECQ CX
	JMP  b2loop

b2done:
	VZEROUPPER
	RET

// Byte shuffles of splitRowAVX2: from the three 16-byte thirds X0, X1, X2
// of 16 pixels, the even pixels' bytes 0-15 (E0 | E1) and 16-23 (E2 | E3)
// and the odd pixels' bytes 0-15 (O0 | O1 | O2) and 16-23 (O3); 0x80
// writes a zero.
DATA splitE0<>+0(SB)/8, $0x0d0c080706020100
DATA splitE0<>+8(SB)/8, $0x808080808080800e
GLOBL splitE0<>(SB), RODATA|NOPTR, $16
DATA splitE1<>+0(SB)/8, $0x8080808080808080
DATA splitE1<>+8(SB)/8, $0x0e0a090804030280
GLOBL splitE1<>(SB), RODATA|NOPTR, $16
DATA splitE2<>+0(SB)/8, $0x808080808080800f
DATA splitE2<>+8(SB)/8, $0x8080808080808080
GLOBL splitE2<>(SB), RODATA|NOPTR, $16
DATA splitE3<>+0(SB)/8, $0x0c0b0a0605040080
DATA splitE3<>+8(SB)/8, $0x8080808080808080
GLOBL splitE3<>(SB), RODATA|NOPTR, $16
DATA splitO0<>+0(SB)/8, $0x800f0b0a09050403
DATA splitO0<>+8(SB)/8, $0x8080808080808080
GLOBL splitO0<>(SB), RODATA|NOPTR, $16
DATA splitO1<>+0(SB)/8, $0x0080808080808080
DATA splitO1<>+8(SB)/8, $0x800d0c0b07060501
GLOBL splitO1<>(SB), RODATA|NOPTR, $16
DATA splitO2<>+0(SB)/8, $0x8080808080808080
DATA splitO2<>+8(SB)/8, $0x0180808080808080
GLOBL splitO2<>(SB), RODATA|NOPTR, $16
DATA splitO3<>+0(SB)/8, $0x0f0e0d0908070302
DATA splitO3<>+8(SB)/8, $0x8080808080808080
GLOBL splitO3<>(SB), RODATA|NOPTR, $16

// func splitRowAVX2(even *uint8, odd *uint8, src *uint8, groups int)
// 16 pixels (48 bytes) per group: their 8 even pixels to even, their 8
// odd pixels to odd, 24 bytes each.
TEXT ·splitRowAVX2(SB), NOSPLIT, $0-32
	MOVQ even+0(FP), DI
	MOVQ odd+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ groups+24(FP), CX
	VMOVDQU splitE0<>(SB), X8
	VMOVDQU splitE1<>(SB), X9
	VMOVDQU splitE2<>(SB), X10
	VMOVDQU splitE3<>(SB), X11
	VMOVDQU splitO0<>(SB), X12
	VMOVDQU splitO1<>(SB), X13
	VMOVDQU splitO2<>(SB), X14
	VMOVDQU splitO3<>(SB), X15

sloop:
	TESTQ CX, CX
	JZ    sdone
	VMOVDQU (SI), X0
	VMOVDQU 16(SI), X1
	VMOVDQU 32(SI), X2
	VPSHUFB X8, X0, X3
	VPSHUFB X9, X1, X4
	VPOR X4, X3, X3
	VMOVDQU X3, (DI)
	VPSHUFB X10, X1, X4
	VPSHUFB X11, X2, X5
	VPOR X5, X4, X4
	VMOVQ X4, 16(DI)
	VPSHUFB X12, X0, X3
	VPSHUFB X13, X1, X4
	VPSHUFB X14, X2, X5
	VPOR X4, X3, X3
	VPOR X5, X3, X3
	VMOVDQU X3, (DX)
	VPSHUFB X15, X2, X4
	VMOVQ X4, 16(DX)
	ADDQ $48, SI
	ADDQ $24, DI
	ADDQ $24, DX
	DECQ CX
	JMP  sloop

sdone:
	VZEROUPPER
	RET
