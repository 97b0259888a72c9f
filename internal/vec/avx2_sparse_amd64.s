#include "textflag.h"

// AVX2 kernels of the sparse-row operations (sparse_amd64.go declares
// them): ScatterRow's columns in groups of four, and the index check of
// rowsInRange. They need only AVX2, so the AVX-512 path calls them too.

// func scatterQuadsAVX2(idx *int32, val *float64, nnz int, src, dst *float64, strideBytes, nq int)
//
// ScatterRow on nq groups of four columns (nnz ≥ 1, indices checked by the
// caller): eight groups at a time, then four, two and one, src's groups in
// Y0–Y7; for each entry in order its value is broadcast, multiplied by them
// (rounded) and added to the row's groups in memory, so that two entries of
// one row add in order. The operations and their operand order are
// scatterRowAVX512's.
TEXT ·scatterQuadsAVX2(SB), NOSPLIT, $0-56
	MOVQ idx+0(FP), SI
	MOVQ val+8(FP), R8
	MOVQ nnz+16(FP), R9
	MOVQ src+24(FP), R11
	MOVQ dst+32(FP), DI
	MOVQ strideBytes+40(FP), R10
	MOVQ nq+48(FP), CX

// SQROW sets AX to the address of entry BX's row in dst and broadcasts its
// value into Y8.
#define SQROW \
	MOVLQSX (SI)(BX*4), AX; \
	IMULQ R10, AX; \
	ADDQ DI, AX; \
	VBROADCASTSD (R8)(BX*8), Y8

// SQADD adds Y8 times src's group s to the group at off(AX).
#define SQADD(s, t, off) \
	VMULPD s, Y8, t; \
	VADDPD off(AX), t, t; \
	VMOVUPD t, off(AX)

sq8:
	CMPQ CX, $8
	JLT  sq4
	VMOVUPD (R11), Y0
	VMOVUPD 32(R11), Y1
	VMOVUPD 64(R11), Y2
	VMOVUPD 96(R11), Y3
	VMOVUPD 128(R11), Y4
	VMOVUPD 160(R11), Y5
	VMOVUPD 192(R11), Y6
	VMOVUPD 224(R11), Y7
	XORQ BX, BX

sq8q:
	SQROW
	SQADD(Y0, Y9, 0)
	SQADD(Y1, Y10, 32)
	SQADD(Y2, Y11, 64)
	SQADD(Y3, Y12, 96)
	SQADD(Y4, Y13, 128)
	SQADD(Y5, Y14, 160)
	SQADD(Y6, Y15, 192)
	SQADD(Y7, Y9, 224)
	INCQ BX
	CMPQ BX, R9
	JLT  sq8q
	ADDQ $256, R11
	ADDQ $256, DI
	SUBQ $8, CX
	JMP  sq8

sq4:
	CMPQ CX, $4
	JLT  sq2
	VMOVUPD (R11), Y0
	VMOVUPD 32(R11), Y1
	VMOVUPD 64(R11), Y2
	VMOVUPD 96(R11), Y3
	XORQ BX, BX

sq4q:
	SQROW
	SQADD(Y0, Y9, 0)
	SQADD(Y1, Y10, 32)
	SQADD(Y2, Y11, 64)
	SQADD(Y3, Y12, 96)
	INCQ BX
	CMPQ BX, R9
	JLT  sq4q
	ADDQ $128, R11
	ADDQ $128, DI
	SUBQ $4, CX

sq2:
	CMPQ CX, $2
	JLT  sq1
	VMOVUPD (R11), Y0
	VMOVUPD 32(R11), Y1
	XORQ BX, BX

sq2q:
	SQROW
	SQADD(Y0, Y9, 0)
	SQADD(Y1, Y10, 32)
	INCQ BX
	CMPQ BX, R9
	JLT  sq2q
	ADDQ $64, R11
	ADDQ $64, DI
	SUBQ $2, CX

sq1:
	TESTQ CX, CX
	JEQ   sqdone
	VMOVUPD (R11), Y0
	XORQ BX, BX

sq1q:
	SQROW
	SQADD(Y0, Y9, 0)
	INCQ BX
	CMPQ BX, R9
	JLT  sq1q

sqdone:
	VZEROUPPER
	RET

// Lane masks of the index check's last, partial group: eight int32 −1
// then eight 0, loaded from 4·(8 − r) bytes in for r entries left.
DATA maxIdxMask<>+0(SB)/8, $-1
DATA maxIdxMask<>+8(SB)/8, $-1
DATA maxIdxMask<>+16(SB)/8, $-1
DATA maxIdxMask<>+24(SB)/8, $-1
DATA maxIdxMask<>+32(SB)/8, $0
DATA maxIdxMask<>+40(SB)/8, $0
DATA maxIdxMask<>+48(SB)/8, $0
DATA maxIdxMask<>+56(SB)/8, $0
GLOBL maxIdxMask<>(SB), RODATA|NOPTR, $64

// func maxIndexAVX2(idx *int32, n int) uint32
//
// The largest of idx[0…n) as unsigned numbers (n ≥ 1; a negative index is
// a large one): 32 at a time in four registers, then eight at a time, the
// last 1–7 under a lane mask (VPMASKMOVD reads nothing past them and
// fills 0, which leaves a maximum as it is).
TEXT ·maxIndexAVX2(SB), NOSPLIT, $0-20
	MOVQ idx+0(FP), SI
	MOVQ n+8(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3

mx32:
	CMPQ CX, $32
	JLT  mx8
	VPMAXUD (SI), Y0, Y0
	VPMAXUD 32(SI), Y1, Y1
	VPMAXUD 64(SI), Y2, Y2
	VPMAXUD 96(SI), Y3, Y3
	ADDQ $128, SI
	SUBQ $32, CX
	JMP  mx32

mx8:
	CMPQ CX, $8
	JLT  mxtail
	VPMAXUD (SI), Y0, Y0
	ADDQ $32, SI
	SUBQ $8, CX
	JMP  mx8

mxtail:
	TESTQ CX, CX
	JEQ   mxred
	LEAQ maxIdxMask<>+32(SB), AX
	SHLQ $2, CX
	SUBQ CX, AX
	VMOVDQU (AX), Y4
	VPMASKMOVD (SI), Y4, Y5
	VPMAXUD Y5, Y1, Y1

mxred:
	VPMAXUD Y1, Y0, Y0
	VPMAXUD Y3, Y2, Y2
	VPMAXUD Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPMAXUD X1, X0, X0
	VMOVD X0, AX
	MOVL AX, ret+16(FP)
	VZEROUPPER
	RET
