#include "textflag.h"

// Lane masks of GonumDots' last, partial block: eight int64 −1 then eight
// 0, loaded from 8·(8 − r) bytes in for r columns left (lanes 0–3 from
// there, lanes 4–7 32 bytes further).
DATA gdMask<>+0(SB)/8, $-1
DATA gdMask<>+8(SB)/8, $-1
DATA gdMask<>+16(SB)/8, $-1
DATA gdMask<>+24(SB)/8, $-1
DATA gdMask<>+32(SB)/8, $-1
DATA gdMask<>+40(SB)/8, $-1
DATA gdMask<>+48(SB)/8, $-1
DATA gdMask<>+56(SB)/8, $-1
DATA gdMask<>+64(SB)/8, $0
DATA gdMask<>+72(SB)/8, $0
DATA gdMask<>+80(SB)/8, $0
DATA gdMask<>+88(SB)/8, $0
DATA gdMask<>+96(SB)/8, $0
DATA gdMask<>+104(SB)/8, $0
DATA gdMask<>+112(SB)/8, $0
DATA gdMask<>+120(SB)/8, $0
GLOBL gdMask<>(SB), RODATA|NOPTR, $128

// func gonumDotsAVX2(a *float64, k int, bt *float64, strideBytes int, c *float64, n int)
//
// GonumDots (k ≥ 1, n ≥ 1) as gonumDotsAVX512 computes it, a block of
// eight columns in two registers: the four partial sums of a block in
// Y0–Y7 (sum s of lanes 0–3 in Y(2s), of lanes 4–7 in Y(2s+1)), a[q]
// broadcast in Y8, each product rounded and added to the sum q mod 4 (the
// last k mod 4 to sum 0), then (s0 + s2) + (s1 + s3) and 0 + that. The last
// 1–7 columns are read and written under the lane masks Y12, Y13
// (VMASKMOVPD reads nothing outside them and stores nothing outside them).
TEXT ·gonumDotsAVX2(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), SI
	MOVQ k+8(FP), R9
	MOVQ bt+16(FP), DI
	MOVQ strideBytes+24(FP), R10
	MOVQ c+32(FP), DX
	MOVQ n+40(FP), CX
	MOVQ R9, R11
	ANDQ $-4, R11 // k rounded down to groups of four
	VXORPD Y11, Y11, Y11

#define GDYZERO \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	VXORPD Y3, Y3, Y3; \
	VXORPD Y4, Y4, Y4; \
	VXORPD Y5, Y5, Y5; \
	VXORPD Y6, Y6, Y6; \
	VXORPD Y7, Y7, Y7

// GDYTERM adds a[BX] times row BX of the block (at AX) to the sum slo, shi.
#define GDYTERM(slo, shi) \
	VBROADCASTSD (SI)(BX*8), Y8; \
	VMULPD (AX), Y8, Y9; \
	VMULPD 32(AX), Y8, Y10; \
	VADDPD Y9, slo, slo; \
	VADDPD Y10, shi, shi; \
	ADDQ R10, AX; \
	INCQ BX

// GDYMTERM is GDYTERM with the row read under the masks.
#define GDYMTERM(slo, shi) \
	VBROADCASTSD (SI)(BX*8), Y8; \
	VMASKMOVPD (AX), Y12, Y9; \
	VMASKMOVPD 32(AX), Y13, Y10; \
	VMULPD Y9, Y8, Y9; \
	VMULPD Y10, Y8, Y10; \
	VADDPD Y9, slo, slo; \
	VADDPD Y10, shi, shi; \
	ADDQ R10, AX; \
	INCQ BX

// GDYSUM leaves (s0 + s2) + (s1 + s3), plus 0, in Y0 (lanes 0–3) and Y1.
#define GDYSUM \
	VADDPD Y4, Y0, Y0; \
	VADDPD Y6, Y2, Y2; \
	VADDPD Y2, Y0, Y0; \
	VADDPD Y0, Y11, Y0; \
	VADDPD Y5, Y1, Y1; \
	VADDPD Y7, Y3, Y3; \
	VADDPD Y3, Y1, Y1; \
	VADDPD Y1, Y11, Y1

gdy8:
	CMPQ CX, $8
	JLT  gdym
	GDYZERO
	MOVQ DI, AX
	XORQ BX, BX

gdy8q:
	CMPQ BX, R11
	JGE  gdy8tail
	GDYTERM(Y0, Y1)
	GDYTERM(Y2, Y3)
	GDYTERM(Y4, Y5)
	GDYTERM(Y6, Y7)
	JMP  gdy8q

gdy8tail:
	CMPQ BX, R9
	JGE  gdy8end
	GDYTERM(Y0, Y1)
	JMP  gdy8tail

gdy8end:
	GDYSUM
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	ADDQ $64, DI
	ADDQ $64, DX
	SUBQ $8, CX
	JMP  gdy8

gdym:
	TESTQ CX, CX
	JEQ   gdydone
	LEAQ gdMask<>+64(SB), AX
	SHLQ $3, CX
	SUBQ CX, AX
	VMOVDQU (AX), Y12
	VMOVDQU 32(AX), Y13
	GDYZERO
	MOVQ DI, AX
	XORQ BX, BX

gdymq:
	CMPQ BX, R11
	JGE  gdymtail
	GDYMTERM(Y0, Y1)
	GDYMTERM(Y2, Y3)
	GDYMTERM(Y4, Y5)
	GDYMTERM(Y6, Y7)
	JMP  gdymq

gdymtail:
	CMPQ BX, R9
	JGE  gdymend
	GDYMTERM(Y0, Y1)
	JMP  gdymtail

gdymend:
	GDYSUM
	VMASKMOVPD Y0, Y12, (DX)
	VMASKMOVPD Y1, Y13, 32(DX)

gdydone:
	VZEROUPPER
	RET
