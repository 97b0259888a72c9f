#include "textflag.h"

// func dots4x4AVX2(x0, x1, x2, x3, y *float64, strideBytes, nb int, acc *[128]float64)
//
// Dots4x4 (nb ≥ 1) in four passes over the blocks, each for two rows (x0
// and x1, then x2 and x3) by two classes (y's rows 0 and 1, then 2 and 3,
// strideBytes apart): the eight half-block sums in Y0–Y7, both rows'
// blocks in Y8–Y11 and a class's in Y12–Y13, loaded once for both rows.
// Every lane is dot4AVX2's sum: x·y + acc fused, in block order, from zero;
// only the grouping differs (eight loads per eight multiply-adds instead of
// ten; each row of y read twice per four rows of x instead of four times).
TEXT ·dots4x4AVX2(SB), NOSPLIT, $0-64
	MOVQ strideBytes+40(FP), R8
	MOVQ acc+56(FP), DX
	XORQ BX, BX // the pass: rows 2(BX/2) and 2(BX/2)+1, classes 2(BX mod 2) and 2(BX mod 2)+1

d22pass:
	CMPQ BX, $2
	JGE  d22rows23
	MOVQ x0+0(FP), SI
	MOVQ x1+8(FP), R9
	JMP  d22cls

d22rows23:
	MOVQ x2+16(FP), SI
	MOVQ x3+24(FP), R9

d22cls:
	MOVQ y+32(FP), DI
	MOVQ BX, R11
	ANDQ $1, R11
	JEQ  d22go
	LEAQ (DI)(R8*2), DI

d22go:
	LEAQ (DI)(R8*1), R10
	MOVQ nb+48(FP), CX
	XORQ AX, AX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

d22loop:
	VMOVUPD (SI)(AX*1), Y8
	VMOVUPD 32(SI)(AX*1), Y9
	VMOVUPD (R9)(AX*1), Y10
	VMOVUPD 32(R9)(AX*1), Y11
	VMOVUPD (DI)(AX*1), Y12
	VMOVUPD 32(DI)(AX*1), Y13
	VFMADD231PD Y12, Y8, Y0
	VFMADD231PD Y13, Y9, Y1
	VFMADD231PD Y12, Y10, Y4
	VFMADD231PD Y13, Y11, Y5
	VMOVUPD (R10)(AX*1), Y12
	VMOVUPD 32(R10)(AX*1), Y13
	VFMADD231PD Y12, Y8, Y2
	VFMADD231PD Y13, Y9, Y3
	VFMADD231PD Y12, Y10, Y6
	VFMADD231PD Y13, Y11, Y7
	ADDQ $64, AX
	DECQ CX
	JNE  d22loop

	// Row t's sums for class k at acc[8(4t+k)…]: byte 256t + 64k, so
	// 512(BX/2) + 128(BX mod 2) for this pass's first row and class.
	MOVQ BX, AX
	SHRQ $1, AX
	SHLQ $9, AX
	SHLQ $7, R11
	ADDQ R11, AX
	ADDQ DX, AX
	VMOVUPD Y0, (AX)
	VMOVUPD Y1, 32(AX)
	VMOVUPD Y2, 64(AX)
	VMOVUPD Y3, 96(AX)
	VMOVUPD Y4, 256(AX)
	VMOVUPD Y5, 288(AX)
	VMOVUPD Y6, 320(AX)
	VMOVUPD Y7, 352(AX)
	INCQ BX
	CMPQ BX, $4
	JLT  d22pass

	VZEROUPPER
	RET
