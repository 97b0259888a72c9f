//go:build goexperiment.simd && amd64

#include "textflag.h"

// AVX-512 loops of the HyLa kernels (features_simd.go). Every function works
// on blocks of eight float64 (64 bytes) and computes exactly what the Go
// code documenting it says, with fused multiply-adds in the order given, so
// the results depend on the inputs only.

// func hylaDistAVX512(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int)
//
// For each block b < nb: q[8b:8b+8] = Σ_k (z_k − Ωᵀ[k][8b:8b+8])², one
// t = z_k − ω then acc = t·t + acc (fused) per k in order, from zero. Eight
// blocks at a time share each broadcast of z_k (eight independent chains),
// then four, then one.
TEXT ·hylaDistAVX512(SB), NOSPLIT, $0-48
	MOVQ z+0(FP), SI
	MOVQ d0+8(FP), R8
	MOVQ omegaT+16(FP), DI
	MOVQ strideBytes+24(FP), R9
	MOVQ q+32(FP), DX
	MOVQ nb+40(FP), CX

dist8:
	CMPQ CX, $8
	JLT  dist4
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z10, Z10, Z10
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12
	VXORPD Z13, Z13, Z13
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ R8, R12

dist8k:
	VBROADCASTSD (R11), Z4
	VSUBPD (R10), Z4, Z5
	VSUBPD 64(R10), Z4, Z6
	VSUBPD 128(R10), Z4, Z7
	VSUBPD 192(R10), Z4, Z8
	VSUBPD 256(R10), Z4, Z14
	VSUBPD 320(R10), Z4, Z15
	VSUBPD 384(R10), Z4, Z16
	VSUBPD 448(R10), Z4, Z17
	VFMADD231PD Z5, Z5, Z0
	VFMADD231PD Z6, Z6, Z1
	VFMADD231PD Z7, Z7, Z2
	VFMADD231PD Z8, Z8, Z3
	VFMADD231PD Z14, Z14, Z10
	VFMADD231PD Z15, Z15, Z11
	VFMADD231PD Z16, Z16, Z12
	VFMADD231PD Z17, Z17, Z13
	ADDQ $8, R11
	ADDQ R9, R10
	DECQ R12
	JNE  dist8k
	VMOVUPD Z0, (DX)
	VMOVUPD Z1, 64(DX)
	VMOVUPD Z2, 128(DX)
	VMOVUPD Z3, 192(DX)
	VMOVUPD Z10, 256(DX)
	VMOVUPD Z11, 320(DX)
	VMOVUPD Z12, 384(DX)
	VMOVUPD Z13, 448(DX)
	ADDQ $512, DI
	ADDQ $512, DX
	SUBQ $8, CX
	JMP  dist8

dist4:
	CMPQ CX, $4
	JLT  dist1
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ R8, R12

dist4k:
	VBROADCASTSD (R11), Z4
	VSUBPD (R10), Z4, Z5
	VSUBPD 64(R10), Z4, Z6
	VSUBPD 128(R10), Z4, Z7
	VSUBPD 192(R10), Z4, Z8
	VFMADD231PD Z5, Z5, Z0
	VFMADD231PD Z6, Z6, Z1
	VFMADD231PD Z7, Z7, Z2
	VFMADD231PD Z8, Z8, Z3
	ADDQ $8, R11
	ADDQ R9, R10
	DECQ R12
	JNE  dist4k
	VMOVUPD Z0, (DX)
	VMOVUPD Z1, 64(DX)
	VMOVUPD Z2, 128(DX)
	VMOVUPD Z3, 192(DX)
	ADDQ $256, DI
	ADDQ $256, DX
	SUBQ $4, CX
	JMP  dist4

dist1:
	TESTQ CX, CX
	JEQ   distdone
	VXORPD Z0, Z0, Z0
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ R8, R12

dist1k:
	VBROADCASTSD (R11), Z4
	VSUBPD (R10), Z4, Z5
	VFMADD231PD Z5, Z5, Z0
	ADDQ $8, R11
	ADDQ R9, R10
	DECQ R12
	JNE  dist1k
	VMOVUPD Z0, (DX)
	ADDQ $64, DI
	ADDQ $64, DX
	DECQ CX
	JMP  dist1

distdone:
	VZEROUPPER
	RET

// func hylaGradPassAVX512(w *float64, strideBytes int, gy *float64, nc int, e1, e2, c *float64, nb int, s *[16]float64)
//
// For each block b < nb: g = Σ_{k<nc} gy[k]·w[k][b] (fused, in k order, from
// zero; rows strideBytes apart), c[b] = g·e2[b], s1 = g·e1[b] + s1 (fused),
// s2 = s2 + c[b], in block order. Stores s1 into s[0:8] and s2 into
// s[8:16]. nc ≥ 1. The sums g of four blocks run side by side.
TEXT ·hylaGradPassAVX512(SB), NOSPLIT, $0-72
	MOVQ w+0(FP), SI
	MOVQ strideBytes+8(FP), R8
	MOVQ gy+16(FP), R9
	MOVQ nc+24(FP), R10
	MOVQ e1+32(FP), R11
	MOVQ e2+40(FP), R12
	MOVQ c+48(FP), R13
	MOVQ nb+56(FP), CX
	MOVQ s+64(FP), DX
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	XORQ AX, AX

gp4:
	CMPQ CX, $4
	JLT  gp1
	VXORPD Z2, Z2, Z2
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	LEAQ (SI)(AX*1), DI
	XORQ BX, BX

gp4cls:
	VBROADCASTSD (R9)(BX*8), Z3
	VFMADD231PD (DI), Z3, Z2
	VFMADD231PD 64(DI), Z3, Z5
	VFMADD231PD 128(DI), Z3, Z6
	VFMADD231PD 192(DI), Z3, Z7
	ADDQ R8, DI
	INCQ BX
	CMPQ BX, R10
	JLT  gp4cls
	VMULPD (R12)(AX*1), Z2, Z4
	VMOVUPD Z4, (R13)(AX*1)
	VFMADD231PD (R11)(AX*1), Z2, Z0
	VADDPD Z4, Z1, Z1
	VMULPD 64(R12)(AX*1), Z5, Z4
	VMOVUPD Z4, 64(R13)(AX*1)
	VFMADD231PD 64(R11)(AX*1), Z5, Z0
	VADDPD Z4, Z1, Z1
	VMULPD 128(R12)(AX*1), Z6, Z4
	VMOVUPD Z4, 128(R13)(AX*1)
	VFMADD231PD 128(R11)(AX*1), Z6, Z0
	VADDPD Z4, Z1, Z1
	VMULPD 192(R12)(AX*1), Z7, Z4
	VMOVUPD Z4, 192(R13)(AX*1)
	VFMADD231PD 192(R11)(AX*1), Z7, Z0
	VADDPD Z4, Z1, Z1
	ADDQ $256, AX
	SUBQ $4, CX
	JMP  gp4

gp1:
	TESTQ CX, CX
	JEQ   gpdone
	VXORPD Z2, Z2, Z2
	LEAQ (SI)(AX*1), DI
	XORQ BX, BX

gpcls:
	VBROADCASTSD (R9)(BX*8), Z3
	VFMADD231PD (DI), Z3, Z2
	ADDQ R8, DI
	INCQ BX
	CMPQ BX, R10
	JLT  gpcls
	VMULPD (R12)(AX*1), Z2, Z4
	VMOVUPD Z4, (R13)(AX*1)
	VFMADD231PD (R11)(AX*1), Z2, Z0
	VADDPD Z4, Z1, Z1
	ADDQ $64, AX
	DECQ CX
	JMP  gp1

gpdone:
	VMOVUPD Z0, (DX)
	VMOVUPD Z1, 64(DX)
	VZEROUPPER
	RET

// func hylaGz8AVX512(c, omegaT *float64, strideBytes, nb int, out *[64]float64)
//
// For the eight rows r < 8 of Ωᵀ starting at omegaT (strideBytes apart):
// out[8r:8r+8] = Σ_b c[b]·Ωᵀ[r][b] (fused, in block order, from zero).
TEXT ·hylaGz8AVX512(SB), NOSPLIT, $0-40
	MOVQ c+0(FP), BX
	MOVQ omegaT+8(FP), SI
	MOVQ strideBytes+16(FP), R8
	MOVQ nb+24(FP), CX
	MOVQ out+32(FP), DX
	LEAQ (SI)(R8*1), DI
	LEAQ (DI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	LEAQ (R13)(R8*1), R8
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z4, Z4, Z4
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	XORQ AX, AX
	TESTQ CX, CX
	JEQ   gz8done

gz8loop:
	VMOVUPD (BX)(AX*1), Z8
	VFMADD231PD (SI)(AX*1), Z8, Z0
	VFMADD231PD (DI)(AX*1), Z8, Z1
	VFMADD231PD (R9)(AX*1), Z8, Z2
	VFMADD231PD (R10)(AX*1), Z8, Z3
	VFMADD231PD (R11)(AX*1), Z8, Z4
	VFMADD231PD (R12)(AX*1), Z8, Z5
	VFMADD231PD (R13)(AX*1), Z8, Z6
	VFMADD231PD (R8)(AX*1), Z8, Z7
	ADDQ $64, AX
	DECQ CX
	JNE  gz8loop

gz8done:
	VMOVUPD Z0, (DX)
	VMOVUPD Z1, 64(DX)
	VMOVUPD Z2, 128(DX)
	VMOVUPD Z3, 192(DX)
	VMOVUPD Z4, 256(DX)
	VMOVUPD Z5, 320(DX)
	VMOVUPD Z6, 384(DX)
	VMOVUPD Z7, 448(DX)
	VZEROUPPER
	RET

// func hylaDot1AVX512(x, y *float64, nb int, out *[8]float64)
//
// out = Σ_b x[b]·y[b] (fused, in block order, from zero).
TEXT ·hylaDot1AVX512(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ nb+16(FP), CX
	MOVQ out+24(FP), DX
	VXORPD Z0, Z0, Z0
	XORQ AX, AX
	TESTQ CX, CX
	JEQ   d1done

d1loop:
	VMOVUPD (SI)(AX*1), Z8
	VFMADD231PD (DI)(AX*1), Z8, Z0
	ADDQ $64, AX
	DECQ CX
	JNE  d1loop

d1done:
	VMOVUPD Z0, (DX)
	VZEROUPPER
	RET

// func hylaDot4AVX512(x, y *float64, strideBytes, nb int, out *[32]float64)
//
// For the four rows r < 4 of y (strideBytes apart): out[8r:8r+8] =
// Σ_b x[b]·y[r][b] (fused, in block order, from zero).
TEXT ·hylaDot4AVX512(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ strideBytes+16(FP), R8
	MOVQ nb+24(FP), CX
	MOVQ out+32(FP), DX
	LEAQ (DI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	XORQ AX, AX
	TESTQ CX, CX
	JEQ   d4done

d4loop:
	VMOVUPD (SI)(AX*1), Z8
	VFMADD231PD (DI)(AX*1), Z8, Z0
	VFMADD231PD (R9)(AX*1), Z8, Z1
	VFMADD231PD (R10)(AX*1), Z8, Z2
	VFMADD231PD (R11)(AX*1), Z8, Z3
	ADDQ $64, AX
	DECQ CX
	JNE  d4loop

d4done:
	VMOVUPD Z0, (DX)
	VMOVUPD Z1, 64(DX)
	VMOVUPD Z2, 128(DX)
	VMOVUPD Z3, 192(DX)
	VZEROUPPER
	RET

// func hylaAxpyAVX512(part *float64, strideBytes int, gy *float64, nc int, phi *float64, nb int)
//
// For each class k < nc and block b < nb (rows of part strideBytes apart):
// part[k][b] = gy[k]·phi[b] + part[k][b] (fused). nc ≥ 1.
TEXT ·hylaAxpyAVX512(SB), NOSPLIT, $0-48
	MOVQ part+0(FP), SI
	MOVQ strideBytes+8(FP), R8
	MOVQ gy+16(FP), R9
	MOVQ nc+24(FP), R10
	MOVQ phi+32(FP), R11
	MOVQ nb+40(FP), R12
	TESTQ R12, R12
	JEQ   axdone

axcls:
	VBROADCASTSD (R9), Z3
	MOVQ SI, DI
	MOVQ R11, DX
	MOVQ R12, CX

axblk2:
	CMPQ CX, $2
	JLT  axblk1
	VMOVUPD (DI), Z4
	VMOVUPD 64(DI), Z5
	VFMADD231PD (DX), Z3, Z4
	VFMADD231PD 64(DX), Z3, Z5
	VMOVUPD Z4, (DI)
	VMOVUPD Z5, 64(DI)
	ADDQ $128, DI
	ADDQ $128, DX
	SUBQ $2, CX
	JMP  axblk2

axblk1:
	TESTQ CX, CX
	JEQ   axnext
	VMOVUPD (DI), Z4
	VFMADD231PD (DX), Z3, Z4
	VMOVUPD Z4, (DI)

axnext:
	ADDQ $8, R9
	ADDQ R8, SI
	DECQ R10
	JNE  axcls

axdone:
	VZEROUPPER
	RET

// Constants of hylaMathAAVX512 and hylaMathBAVX512 (bit patterns, as the Go constants of
// features_simd.go round them).
DATA hylaK<>+0(SB)/8, $0x3ff0000000000000 // one
DATA hylaK<>+8(SB)/8, $0x3fe0000000000000 // half
DATA hylaK<>+16(SB)/8, $0x4000000000000000 // two
DATA hylaK<>+24(SB)/8, $0x3ff6a09e667f3bcd // sqrt2
DATA hylaK<>+32(SB)/8, $0x0170000000000000 // lo
DATA hylaK<>+40(SB)/8, $0x7e70000000000000 // hi
DATA hylaK<>+48(SB)/8, $0x3fe0000000000000 // lim
DATA hylaK<>+56(SB)/8, $0x3fe62e42fee00000 // ln2hi
DATA hylaK<>+64(SB)/8, $0x3dea39ef35793c76 // ln2lo
DATA hylaK<>+72(SB)/8, $0x3fe5555555555593 // lg1
DATA hylaK<>+80(SB)/8, $0x3fd999999997fa04 // lg2
DATA hylaK<>+88(SB)/8, $0x3fd2492494229359 // lg3
DATA hylaK<>+96(SB)/8, $0x3fcc71c51d8e78af // lg4
DATA hylaK<>+104(SB)/8, $0x3fc7466496cb03de // lg5
DATA hylaK<>+112(SB)/8, $0x3fc39a09d078c69f // lg6
DATA hylaK<>+120(SB)/8, $0x3fc2f112df3e5244 // lg7
DATA hylaK<>+128(SB)/8, $0x00000000000003ff // 1023
DATA hylaK<>+136(SB)/8, $0x000fffffffffffff // mant
DATA hylaK<>+144(SB)/8, $0x3ff0000000000000 // exp1023
DATA hylaK<>+152(SB)/8, $0x7fffffffffffffff // abs
DATA hylaK<>+160(SB)/8, $0xbd6ae7f3e733b81f // s7
DATA hylaK<>+168(SB)/8, $0x3de6124613a86d09 // s6
DATA hylaK<>+176(SB)/8, $0xbe5ae64567f544e4 // s5
DATA hylaK<>+184(SB)/8, $0x3ec71de3a556c734 // s4
DATA hylaK<>+192(SB)/8, $0xbf2a01a01a01a01a // s3
DATA hylaK<>+200(SB)/8, $0x3f81111111111111 // s2
DATA hylaK<>+208(SB)/8, $0xbfc5555555555555 // s1
DATA hylaK<>+216(SB)/8, $0x3d2ae7f3e733b81f // c8
DATA hylaK<>+224(SB)/8, $0xbda93974a8c07c9d // c7
DATA hylaK<>+232(SB)/8, $0x3e21eed8eff8d898 // c6
DATA hylaK<>+240(SB)/8, $0xbe927e4fb7789f5c // c5
DATA hylaK<>+248(SB)/8, $0x3efa01a01a01a01a // c4
DATA hylaK<>+256(SB)/8, $0xbf56c16c16c16c17 // c3
DATA hylaK<>+264(SB)/8, $0x3fa5555555555555 // c2
DATA hylaK<>+272(SB)/8, $0xbfe0000000000000 // c1
DATA hylaK<>+280(SB)/8, $0x3ff0000000000000 // c0
GLOBL hylaK<>(SB), RODATA|NOPTR, $288

// func hylaMathAAVX512(q, lam, phi, e1, e2 *float64, nb int, a float64) int
//
// The second pass of hylaVecRow, block after block (b < nb), as its Go
// code (hylaMathGo in the tests) spells it operation by operation, in two
// loops over the row so that the out-of-order core overlaps more blocks of
// the long chains of dependent operations: this one computes invq = 1/q,
// p = a·invq, log p (vecLog), δ = λ'·log p and leaves p in phi, δ in e1
// and invq in e2; hylaMathBAVX512 then computes P^{twoRho/2}
// (vecPowHalf), sin/cos δ (vecSinCosSmall) and φ, ∂φ/∂h and ∂φ/∂h·invq
// into phi, e1, e2. This one stops before the first block with a P
// outside [2^−1000, 2^1000], a NaN or an |δ| > 0.5 (writing nothing for
// it) and returns the number of blocks done (nb if none). Each loop runs
// two blocks side by side: the macros below are one block's stages, on
// registers x0…x12 and masks kb (bad lanes), kt, kg; block A uses Z0–Z12
// and K1–K3, block B Z13–Z25 and K4–K6. Z28 = ρ, Z29 = 0.5, Z30 = 1,
// Z31 = a. SI, R8–R13: q, λ', sin b, cos b, φ, e1, e2; AX: byte offset.

// q, 1/q, p and the range of p.
#define MATH1(off, x0, x1, x2, kb, kt) \
	VMOVUPD off(SI)(AX*1), x0; \
	VDIVPD x0, Z30, x1; \
	VMULPD x1, Z31, x2; \
	VCMPPD.BCST $0x11, hylaK<>+32(SB), x2, kb; \
	VCMPPD.BCST $0x1e, hylaK<>+40(SB), x2, kt; \
	KORW kt, kb, kb; \
	VCMPPD $0x03, x2, x2, kt; \
	KORW kt, kb, kb

// log p, first part: exponent e (x3), mantissa m (x4), f (x5), s (x6).
#define MATH2(x2, x3, x4, x5, x6, kg) \
	VPSRLQ $52, x2, x3; \
	VPSUBQ.BCST hylaK<>+128(SB), x3, x3; \
	VCVTQQ2PD x3, x3; \
	VPANDQ.BCST hylaK<>+136(SB), x2, x4; \
	VPORQ.BCST hylaK<>+144(SB), x4, x4; \
	VCMPPD.BCST $0x1e, hylaK<>+24(SB), x4, kg; \
	VMULPD Z29, x4, kg, x4; \
	VADDPD Z30, x3, kg, x3; \
	VSUBPD Z30, x4, x5; \
	VADDPD.BCST hylaK<>+16(SB), x5, x6; \
	VDIVPD x6, x5, x6

// log p, the polynomial: R = t1 + t2 into x9.
#define MATH3(x6, x7, x8, x9, x10) \
	VMULPD x6, x6, x7; \
	VMULPD x7, x7, x8; \
	VMULPD.BCST hylaK<>+120(SB), x8, x9; \
	VADDPD.BCST hylaK<>+104(SB), x9, x9; \
	VMULPD x9, x8, x9; \
	VADDPD.BCST hylaK<>+88(SB), x9, x9; \
	VMULPD x9, x8, x9; \
	VADDPD.BCST hylaK<>+72(SB), x9, x9; \
	VMULPD x9, x7, x9; \
	VMULPD.BCST hylaK<>+112(SB), x8, x10; \
	VADDPD.BCST hylaK<>+96(SB), x10, x10; \
	VMULPD x10, x8, x10; \
	VADDPD.BCST hylaK<>+80(SB), x10, x10; \
	VMULPD x10, x8, x10; \
	VADDPD x10, x9, x9

// log p into x11.
#define MATH4(x3, x5, x6, x7, x9, x10, x11) \
	VMULPD x5, Z29, x10; \
	VMULPD x5, x10, x10; \
	VADDPD x9, x10, x11; \
	VMULPD x11, x6, x11; \
	VMULPD.BCST hylaK<>+64(SB), x3, x7; \
	VADDPD x7, x11, x11; \
	VSUBPD x11, x10, x11; \
	VSUBPD x5, x11, x11; \
	VMULPD.BCST hylaK<>+56(SB), x3, x7; \
	VSUBPD x11, x7, x11

// λ' (x12), δ (x3) and its range.
#define MATH5(off, x3, x4, x11, x12, kb, kt) \
	VMOVUPD off(R8)(AX*1), x12; \
	VMULPD x11, x12, x3; \
	VANDPD.BCST hylaK<>+152(SB), x3, x4; \
	VCMPPD.BCST $0x1e, hylaK<>+48(SB), x4, kt; \
	KORW kt, kb, kb

// sin δ (x8), cos δ (x9).
#define MATH7(x3, x7, x8, x9) \
	VMULPD x3, x3, x7; \
	VBROADCASTSD hylaK<>+160(SB), x8; \
	VFMADD213PD.BCST hylaK<>+168(SB), x7, x8; \
	VFMADD213PD.BCST hylaK<>+176(SB), x7, x8; \
	VFMADD213PD.BCST hylaK<>+184(SB), x7, x8; \
	VFMADD213PD.BCST hylaK<>+192(SB), x7, x8; \
	VFMADD213PD.BCST hylaK<>+200(SB), x7, x8; \
	VFMADD213PD.BCST hylaK<>+208(SB), x7, x8; \
	VMULPD x8, x7, x8; \
	VMULPD x3, x8, x8; \
	VADDPD x3, x8, x8; \
	VBROADCASTSD hylaK<>+216(SB), x9; \
	VFMADD213PD.BCST hylaK<>+224(SB), x7, x9; \
	VFMADD213PD.BCST hylaK<>+232(SB), x7, x9; \
	VFMADD213PD.BCST hylaK<>+240(SB), x7, x9; \
	VFMADD213PD.BCST hylaK<>+248(SB), x7, x9; \
	VFMADD213PD.BCST hylaK<>+256(SB), x7, x9; \
	VFMADD213PD.BCST hylaK<>+264(SB), x7, x9; \
	VFMADD213PD.BCST hylaK<>+272(SB), x7, x9; \
	VFMADD213PD.BCST hylaK<>+280(SB), x7, x9

// sin(b+δ), cos(b+δ) and the outputs (mag in x5, invq in x1).
#define MATH8(off, x0, x1, x2, x4, x5, x7, x8, x9, x10, x11, x12) \
	VMOVUPD off(R9)(AX*1), x0; \
	VMOVUPD off(R10)(AX*1), x4; \
	VMULPD x9, x0, x10; \
	VMULPD x8, x4, x11; \
	VADDPD x11, x10, x10; \
	VMULPD x9, x4, x11; \
	VMULPD x8, x0, x2; \
	VSUBPD x2, x11, x11; \
	VMULPD x11, x5, x2; \
	VMOVUPD x2, off(R11)(AX*1); \
	VMULPD x11, Z28, x7; \
	VMULPD x10, x12, x8; \
	VSUBPD x8, x7, x7; \
	VMULPD x7, x5, x7; \
	VMOVUPD x7, off(R12)(AX*1); \
	VMULPD x1, x7, x7; \
	VMOVUPD x7, off(R13)(AX*1)

TEXT ·hylaMathAAVX512(SB), NOSPLIT, $0-64
	MOVQ q+0(FP), SI
	MOVQ lam+8(FP), R8
	MOVQ phi+16(FP), R11
	MOVQ e1+24(FP), R12
	MOVQ e2+32(FP), R13
	MOVQ nb+40(FP), CX
	VBROADCASTSD a+48(FP), Z31
	VBROADCASTSD hylaK<>+0(SB), Z30
	VBROADCASTSD hylaK<>+8(SB), Z29
	XORQ DX, DX
	XORQ AX, AX

mapair:
	CMPQ CX, $2
	JLT  masingle
	MATH1(0, Z0, Z1, Z2, K1, K2)
	MATH1(64, Z13, Z14, Z15, K4, K5)
	MATH2(Z2, Z3, Z4, Z5, Z6, K3)
	MATH2(Z15, Z16, Z17, Z18, Z19, K6)
	MATH3(Z6, Z7, Z8, Z9, Z10)
	MATH3(Z19, Z20, Z21, Z22, Z23)
	MATH4(Z3, Z5, Z6, Z7, Z9, Z10, Z11)
	MATH4(Z16, Z18, Z19, Z20, Z22, Z23, Z24)
	MATH5(0, Z3, Z4, Z11, Z12, K1, K2)
	MATH5(64, Z16, Z17, Z24, Z25, K4, K5)
	KORW K4, K1, K2
	KORTESTW K2, K2
	JNE masingle
	VMOVUPD Z2, (R11)(AX*1)
	VMOVUPD Z3, (R12)(AX*1)
	VMOVUPD Z1, (R13)(AX*1)
	VMOVUPD Z15, 64(R11)(AX*1)
	VMOVUPD Z16, 64(R12)(AX*1)
	VMOVUPD Z14, 64(R13)(AX*1)
	ADDQ $128, AX
	ADDQ $2, DX
	SUBQ $2, CX
	JMP  mapair

	// One block (the last one, or the first of a pair with a bad block).
masingle:
	TESTQ CX, CX
	JEQ   madone
	MATH1(0, Z0, Z1, Z2, K1, K2)
	MATH2(Z2, Z3, Z4, Z5, Z6, K3)
	MATH3(Z6, Z7, Z8, Z9, Z10)
	MATH4(Z3, Z5, Z6, Z7, Z9, Z10, Z11)
	MATH5(0, Z3, Z4, Z11, Z12, K1, K2)
	KORTESTW K1, K1
	JNE madone
	VMOVUPD Z2, (R11)(AX*1)
	VMOVUPD Z3, (R12)(AX*1)
	VMOVUPD Z1, (R13)(AX*1)
	ADDQ $64, AX
	INCQ DX
	DECQ CX
	JMP  mapair

madone:
	MOVQ DX, ret+56(FP)
	VZEROUPPER
	RET

// func hylaMathBAVX512(lam, sinB, cosB, phi, e1, e2 *float64, nb int, twoRho int)
//
// The second part of the pass for nb blocks that hylaMathAAVX512 left with
// p in phi, δ in e1 and 1/q in e2: P^{twoRho/2}, sin/cos δ and the
// outputs φ, ∂φ/∂h, ∂φ/∂h/q over them. Two blocks at a time, as there.
TEXT ·hylaMathBAVX512(SB), NOSPLIT, $0-64
	MOVQ lam+0(FP), R8
	MOVQ sinB+8(FP), R9
	MOVQ cosB+16(FP), R10
	MOVQ phi+24(FP), R11
	MOVQ e1+32(FP), R12
	MOVQ e2+40(FP), R13
	MOVQ nb+48(FP), CX
	MOVQ twoRho+56(FP), DI
	VBROADCASTSD hylaK<>+0(SB), Z30
	CVTSQ2SD DI, X0
	MULSD hylaK<>+8(SB), X0
	VBROADCASTSD X0, Z28
	XORQ AX, AX

mbpair:
	CMPQ CX, $2
	JLT  mbsingle
	VMOVUPD (R11)(AX*1), Z2
	VMOVUPD (R12)(AX*1), Z3
	VMOVUPD (R13)(AX*1), Z1
	VMOVUPD (R8)(AX*1), Z12
	VMOVUPD 64(R11)(AX*1), Z15
	VMOVUPD 64(R12)(AX*1), Z16
	VMOVUPD 64(R13)(AX*1), Z14
	VMOVUPD 64(R8)(AX*1), Z25

	// mag = p^(twoRho/2) into Z5 and Z18 (base in Z6, Z19)
	TESTQ $1, DI
	JEQ   mbpeven
	VSQRTPD Z2, Z5
	VSQRTPD Z15, Z18
	JMP   mbppow

mbpeven:
	VMOVAPD Z30, Z5
	VMOVAPD Z30, Z18

mbppow:
	VMOVAPD Z2, Z6
	VMOVAPD Z15, Z19
	MOVQ DI, BX
	SHRQ $1, BX

mbppowloop:
	TESTQ BX, BX
	JEQ   mbppowdone
	TESTQ $1, BX
	JEQ   mbppowsq
	VMULPD Z6, Z5, Z5
	VMULPD Z19, Z18, Z18

mbppowsq:
	VMULPD Z6, Z6, Z6
	VMULPD Z19, Z19, Z19
	SHRQ $1, BX
	JMP  mbppowloop

mbppowdone:
	MATH7(Z3, Z7, Z8, Z9)
	MATH7(Z16, Z20, Z21, Z22)
	MATH8(0, Z0, Z1, Z2, Z4, Z5, Z7, Z8, Z9, Z10, Z11, Z12)
	MATH8(64, Z13, Z14, Z15, Z17, Z18, Z20, Z21, Z22, Z23, Z24, Z25)
	ADDQ $128, AX
	SUBQ $2, CX
	JMP  mbpair

mbsingle:
	TESTQ CX, CX
	JEQ   mbdone
	VMOVUPD (R11)(AX*1), Z2
	VMOVUPD (R12)(AX*1), Z3
	VMOVUPD (R13)(AX*1), Z1
	VMOVUPD (R8)(AX*1), Z12
	TESTQ $1, DI
	JEQ   mbseven
	VSQRTPD Z2, Z5
	JMP   mbspow

mbseven:
	VMOVAPD Z30, Z5

mbspow:
	VMOVAPD Z2, Z6
	MOVQ DI, BX
	SHRQ $1, BX

mbspowloop:
	TESTQ BX, BX
	JEQ   mbspowdone
	TESTQ $1, BX
	JEQ   mbspowsq
	VMULPD Z6, Z5, Z5

mbspowsq:
	VMULPD Z6, Z6, Z6
	SHRQ $1, BX
	JMP  mbspowloop

mbspowdone:
	MATH7(Z3, Z7, Z8, Z9)
	MATH8(0, Z0, Z1, Z2, Z4, Z5, Z7, Z8, Z9, Z10, Z11, Z12)
	ADDQ $64, AX
	DECQ CX
	JMP  mbsingle

mbdone:
	VZEROUPPER
	RET

// func rffArgsAVX512(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int)
//
// For each block b < nb: q[8b:8b+8] = Σ_k z_k·Λᵀ[k][8b:8b+8], one fused
// multiply-add per k in order, from zero (the RFF map's arguments). Eight
// blocks at a time share each broadcast of z_k, then one.
TEXT ·rffArgsAVX512(SB), NOSPLIT, $0-48
	MOVQ z+0(FP), SI
	MOVQ d0+8(FP), R8
	MOVQ omegaT+16(FP), DI
	MOVQ strideBytes+24(FP), R9
	MOVQ q+32(FP), DX
	MOVQ nb+40(FP), CX

rarg8:
	CMPQ CX, $8
	JLT  rarg1
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z10, Z10, Z10
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12
	VXORPD Z13, Z13, Z13
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ R8, R12

rarg8k:
	VBROADCASTSD (R11), Z4
	VFMADD231PD (R10), Z4, Z0
	VFMADD231PD 64(R10), Z4, Z1
	VFMADD231PD 128(R10), Z4, Z2
	VFMADD231PD 192(R10), Z4, Z3
	VFMADD231PD 256(R10), Z4, Z10
	VFMADD231PD 320(R10), Z4, Z11
	VFMADD231PD 384(R10), Z4, Z12
	VFMADD231PD 448(R10), Z4, Z13
	ADDQ $8, R11
	ADDQ R9, R10
	DECQ R12
	JNE  rarg8k
	VMOVUPD Z0, (DX)
	VMOVUPD Z1, 64(DX)
	VMOVUPD Z2, 128(DX)
	VMOVUPD Z3, 192(DX)
	VMOVUPD Z10, 256(DX)
	VMOVUPD Z11, 320(DX)
	VMOVUPD Z12, 384(DX)
	VMOVUPD Z13, 448(DX)
	ADDQ $512, DI
	ADDQ $512, DX
	SUBQ $8, CX
	JMP  rarg8

rarg1:
	TESTQ CX, CX
	JEQ   rargdone
	VXORPD Z0, Z0, Z0
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ R8, R12

rarg1k:
	VBROADCASTSD (R11), Z4
	VFMADD231PD (R10), Z4, Z0
	ADDQ $8, R11
	ADDQ R9, R10
	DECQ R12
	JNE  rarg1k
	VMOVUPD Z0, (DX)
	ADDQ $64, DI
	ADDQ $64, DX
	DECQ CX
	JMP  rarg1

rargdone:
	VZEROUPPER
	RET
