#include "textflag.h"

// The AVX-512 kernels (kernels.go documents each; generic.go is their
// portable reference). Every function works on blocks of eight float64
// (64 bytes, one Z register) and does exactly the operations of the
// reference, lane by lane, with fused multiply-adds where it has them.

// func distAVX512(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int)
//
// For each block b < nb: q[8b:8b+8] = Σ_k (z_k − Ωᵀ[k][8b:8b+8])², one
// t = z_k − ω then acc = t·t + acc (fused) per k in order, from zero. Eight
// blocks at a time share each broadcast of z_k (eight independent chains),
// then four, then one.
TEXT ·distAVX512(SB), NOSPLIT, $0-48
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

// func gradPassAVX512(w *float64, strideBytes int, gy *float64, nc int, e1, e2, c *float64, nb int, s *[16]float64)
//
// For each block b < nb: g = Σ_{k<nc} gy[k]·w[k][b] (fused, in k order, from
// zero; rows strideBytes apart), c[b] = g·e2[b], s1 = g·e1[b] + s1 (fused),
// s2 = s2 + c[b], in block order. Stores s1 into s[0:8] and s2 into
// s[8:16]. nc ≥ 1. The sums g of four blocks run side by side.
TEXT ·gradPassAVX512(SB), NOSPLIT, $0-72
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

// func gz8AVX512(c, omegaT *float64, strideBytes, nb int, out *[64]float64)
//
// For the eight rows r < 8 of Ωᵀ starting at omegaT (strideBytes apart):
// out[8r:8r+8] = Σ_b c[b]·Ωᵀ[r][b] (fused, in block order, from zero).
TEXT ·gz8AVX512(SB), NOSPLIT, $0-40
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

// func dot1AVX512(x, y *float64, nb int, out *[8]float64)
//
// out = Σ_b x[b]·y[b] (fused, in block order, from zero).
TEXT ·dot1AVX512(SB), NOSPLIT, $0-32
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

// func dot4AVX512(x, y *float64, strideBytes, nb int, out *[32]float64)
//
// For the four rows r < 4 of y (strideBytes apart): out[8r:8r+8] =
// Σ_b x[b]·y[r][b] (fused, in block order, from zero).
TEXT ·dot4AVX512(SB), NOSPLIT, $0-40
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

// func axpyAVX512(part *float64, strideBytes int, gy *float64, nc int, phi *float64, nb int)
//
// For each class k < nc and block b < nb (rows of part strideBytes apart):
// part[k][b] = gy[k]·phi[b] + part[k][b] (fused). nc ≥ 1.
TEXT ·axpyAVX512(SB), NOSPLIT, $0-48
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

// Constants of mathAAVX512 and mathBAVX512 (bit patterns, as the Go constants of
// consts.go holds them).
DATA vecK<>+0(SB)/8, $0x3ff0000000000000 // one
DATA vecK<>+8(SB)/8, $0x3fe0000000000000 // half
DATA vecK<>+16(SB)/8, $0x4000000000000000 // two
DATA vecK<>+24(SB)/8, $0x3ff6a09e667f3bcd // sqrt2
DATA vecK<>+32(SB)/8, $0x0170000000000000 // lo
DATA vecK<>+40(SB)/8, $0x7e70000000000000 // hi
DATA vecK<>+48(SB)/8, $0x3fe0000000000000 // lim
DATA vecK<>+56(SB)/8, $0x3fe62e42fee00000 // ln2hi
DATA vecK<>+64(SB)/8, $0x3dea39ef35793c76 // ln2lo
DATA vecK<>+72(SB)/8, $0x3fe5555555555593 // lg1
DATA vecK<>+80(SB)/8, $0x3fd999999997fa04 // lg2
DATA vecK<>+88(SB)/8, $0x3fd2492494229359 // lg3
DATA vecK<>+96(SB)/8, $0x3fcc71c51d8e78af // lg4
DATA vecK<>+104(SB)/8, $0x3fc7466496cb03de // lg5
DATA vecK<>+112(SB)/8, $0x3fc39a09d078c69f // lg6
DATA vecK<>+120(SB)/8, $0x3fc2f112df3e5244 // lg7
DATA vecK<>+128(SB)/8, $0x00000000000003ff // 1023
DATA vecK<>+136(SB)/8, $0x000fffffffffffff // mant
DATA vecK<>+144(SB)/8, $0x3ff0000000000000 // exp1023
DATA vecK<>+152(SB)/8, $0x7fffffffffffffff // abs
DATA vecK<>+160(SB)/8, $0xbd6ae7f3e733b81f // s7
DATA vecK<>+168(SB)/8, $0x3de6124613a86d09 // s6
DATA vecK<>+176(SB)/8, $0xbe5ae64567f544e4 // s5
DATA vecK<>+184(SB)/8, $0x3ec71de3a556c734 // s4
DATA vecK<>+192(SB)/8, $0xbf2a01a01a01a01a // s3
DATA vecK<>+200(SB)/8, $0x3f81111111111111 // s2
DATA vecK<>+208(SB)/8, $0xbfc5555555555555 // s1
DATA vecK<>+216(SB)/8, $0x3d2ae7f3e733b81f // c8
DATA vecK<>+224(SB)/8, $0xbda93974a8c07c9d // c7
DATA vecK<>+232(SB)/8, $0x3e21eed8eff8d898 // c6
DATA vecK<>+240(SB)/8, $0xbe927e4fb7789f5c // c5
DATA vecK<>+248(SB)/8, $0x3efa01a01a01a01a // c4
DATA vecK<>+256(SB)/8, $0xbf56c16c16c16c17 // c3
DATA vecK<>+264(SB)/8, $0x3fa5555555555555 // c2
DATA vecK<>+272(SB)/8, $0xbfe0000000000000 // c1
DATA vecK<>+280(SB)/8, $0x3ff0000000000000 // c0
GLOBL vecK<>(SB), RODATA|NOPTR, $288

// func mathAAVX512(q, lam, phi, e1, e2 *float64, nb int, a float64) int
//
// The second pass of the HyLa row, block after block (b < nb), as its Go
// reference (mathAGeneric) spells it operation by operation, in two
// loops over the row so that the out-of-order core overlaps more blocks of
// the long chains of dependent operations: this one computes invq = 1/q,
// p = a·invq, log p (vecLog), δ = λ'·log p and leaves p in phi, δ in e1
// and invq in e2; mathBAVX512 then computes P^{twoRho/2}
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
	VCMPPD.BCST $0x11, vecK<>+32(SB), x2, kb; \
	VCMPPD.BCST $0x1e, vecK<>+40(SB), x2, kt; \
	KORW kt, kb, kb; \
	VCMPPD $0x03, x2, x2, kt; \
	KORW kt, kb, kb

// log p, first part: exponent e (x3), mantissa m (x4), f (x5), s (x6).
#define MATH2(x2, x3, x4, x5, x6, kg) \
	VPSRLQ $52, x2, x3; \
	VPSUBQ.BCST vecK<>+128(SB), x3, x3; \
	VCVTQQ2PD x3, x3; \
	VPANDQ.BCST vecK<>+136(SB), x2, x4; \
	VPORQ.BCST vecK<>+144(SB), x4, x4; \
	VCMPPD.BCST $0x1e, vecK<>+24(SB), x4, kg; \
	VMULPD Z29, x4, kg, x4; \
	VADDPD Z30, x3, kg, x3; \
	VSUBPD Z30, x4, x5; \
	VADDPD.BCST vecK<>+16(SB), x5, x6; \
	VDIVPD x6, x5, x6

// log p, the polynomial: R = t1 + t2 into x9.
#define MATH3(x6, x7, x8, x9, x10) \
	VMULPD x6, x6, x7; \
	VMULPD x7, x7, x8; \
	VMULPD.BCST vecK<>+120(SB), x8, x9; \
	VADDPD.BCST vecK<>+104(SB), x9, x9; \
	VMULPD x9, x8, x9; \
	VADDPD.BCST vecK<>+88(SB), x9, x9; \
	VMULPD x9, x8, x9; \
	VADDPD.BCST vecK<>+72(SB), x9, x9; \
	VMULPD x9, x7, x9; \
	VMULPD.BCST vecK<>+112(SB), x8, x10; \
	VADDPD.BCST vecK<>+96(SB), x10, x10; \
	VMULPD x10, x8, x10; \
	VADDPD.BCST vecK<>+80(SB), x10, x10; \
	VMULPD x10, x8, x10; \
	VADDPD x10, x9, x9

// log p into x11.
#define MATH4(x3, x5, x6, x7, x9, x10, x11) \
	VMULPD x5, Z29, x10; \
	VMULPD x5, x10, x10; \
	VADDPD x9, x10, x11; \
	VMULPD x11, x6, x11; \
	VMULPD.BCST vecK<>+64(SB), x3, x7; \
	VADDPD x7, x11, x11; \
	VSUBPD x11, x10, x11; \
	VSUBPD x5, x11, x11; \
	VMULPD.BCST vecK<>+56(SB), x3, x7; \
	VSUBPD x11, x7, x11

// λ' (x12), δ (x3) and its range.
#define MATH5(off, x3, x4, x11, x12, kb, kt) \
	VMOVUPD off(R8)(AX*1), x12; \
	VMULPD x11, x12, x3; \
	VANDPD.BCST vecK<>+152(SB), x3, x4; \
	VCMPPD.BCST $0x1e, vecK<>+48(SB), x4, kt; \
	KORW kt, kb, kb

// sin δ (x8), cos δ (x9).
#define MATH7(x3, x7, x8, x9) \
	VMULPD x3, x3, x7; \
	VBROADCASTSD vecK<>+160(SB), x8; \
	VFMADD213PD.BCST vecK<>+168(SB), x7, x8; \
	VFMADD213PD.BCST vecK<>+176(SB), x7, x8; \
	VFMADD213PD.BCST vecK<>+184(SB), x7, x8; \
	VFMADD213PD.BCST vecK<>+192(SB), x7, x8; \
	VFMADD213PD.BCST vecK<>+200(SB), x7, x8; \
	VFMADD213PD.BCST vecK<>+208(SB), x7, x8; \
	VMULPD x8, x7, x8; \
	VMULPD x3, x8, x8; \
	VADDPD x3, x8, x8; \
	VBROADCASTSD vecK<>+216(SB), x9; \
	VFMADD213PD.BCST vecK<>+224(SB), x7, x9; \
	VFMADD213PD.BCST vecK<>+232(SB), x7, x9; \
	VFMADD213PD.BCST vecK<>+240(SB), x7, x9; \
	VFMADD213PD.BCST vecK<>+248(SB), x7, x9; \
	VFMADD213PD.BCST vecK<>+256(SB), x7, x9; \
	VFMADD213PD.BCST vecK<>+264(SB), x7, x9; \
	VFMADD213PD.BCST vecK<>+272(SB), x7, x9; \
	VFMADD213PD.BCST vecK<>+280(SB), x7, x9

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

TEXT ·mathAAVX512(SB), NOSPLIT, $0-64
	MOVQ q+0(FP), SI
	MOVQ lam+8(FP), R8
	MOVQ phi+16(FP), R11
	MOVQ e1+24(FP), R12
	MOVQ e2+32(FP), R13
	MOVQ nb+40(FP), CX
	VBROADCASTSD a+48(FP), Z31
	VBROADCASTSD vecK<>+0(SB), Z30
	VBROADCASTSD vecK<>+8(SB), Z29
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

// func mathBAVX512(lam, sinB, cosB, phi, e1, e2 *float64, nb int, twoRho int)
//
// The second part of the pass for nb blocks that mathAAVX512 left with
// p in phi, δ in e1 and 1/q in e2: P^{twoRho/2}, sin/cos δ and the
// outputs φ, ∂φ/∂h, ∂φ/∂h/q over them. Two blocks at a time, as there.
TEXT ·mathBAVX512(SB), NOSPLIT, $0-64
	MOVQ lam+0(FP), R8
	MOVQ sinB+8(FP), R9
	MOVQ cosB+16(FP), R10
	MOVQ phi+24(FP), R11
	MOVQ e1+32(FP), R12
	MOVQ e2+40(FP), R13
	MOVQ nb+48(FP), CX
	MOVQ twoRho+56(FP), DI
	VBROADCASTSD vecK<>+0(SB), Z30
	CVTSQ2SD DI, X0
	MULSD vecK<>+8(SB), X0
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

// func argsAVX512(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int)
//
// For each block b < nb: q[8b:8b+8] = Σ_k z_k·Λᵀ[k][8b:8b+8], one fused
// multiply-add per k in order, from zero (the RFF map's arguments). Eight
// blocks at a time share each broadcast of z_k, then one.
TEXT ·argsAVX512(SB), NOSPLIT, $0-48
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

// func dots4x4AVX512(x0, x1, x2, x3, y *float64, strideBytes, nb int, acc *[128]float64)
//
// For rows r < 4 (x0…x3) and classes k < 4 (rows of y strideBytes apart):
// acc[8(4r+k):8(4r+k)+8] = Σ_b xr[b]·y[k][b] (fused, in block order, from
// zero): the sums of dots4AVX512 for four rows at once, with a quarter of
// its loads of y.
TEXT ·dots4x4AVX512(SB), NOSPLIT, $0-64
	MOVQ x0+0(FP), SI
	MOVQ x1+8(FP), R10
	MOVQ x2+16(FP), R11
	MOVQ x3+24(FP), R12
	MOVQ y+32(FP), DI
	MOVQ strideBytes+40(FP), R8
	MOVQ nb+48(FP), CX
	LEAQ (DI)(R8*1), R13
	LEAQ (DI)(R8*2), DX
	LEAQ (R13)(R8*2), BX
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z4, Z4, Z4
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	VXORPD Z8, Z8, Z8
	VXORPD Z9, Z9, Z9
	VXORPD Z10, Z10, Z10
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12
	VXORPD Z13, Z13, Z13
	VXORPD Z14, Z14, Z14
	VXORPD Z15, Z15, Z15
	XORQ AX, AX
	TESTQ CX, CX
	JEQ   d44done

d44loop:
	VMOVUPD (SI)(AX*1), Z16
	VMOVUPD (R10)(AX*1), Z17
	VMOVUPD (R11)(AX*1), Z18
	VMOVUPD (R12)(AX*1), Z19
	VMOVUPD (DI)(AX*1), Z20
	VFMADD231PD Z20, Z16, Z0
	VFMADD231PD Z20, Z17, Z4
	VFMADD231PD Z20, Z18, Z8
	VFMADD231PD Z20, Z19, Z12
	VMOVUPD (R13)(AX*1), Z21
	VFMADD231PD Z21, Z16, Z1
	VFMADD231PD Z21, Z17, Z5
	VFMADD231PD Z21, Z18, Z9
	VFMADD231PD Z21, Z19, Z13
	VMOVUPD (DX)(AX*1), Z22
	VFMADD231PD Z22, Z16, Z2
	VFMADD231PD Z22, Z17, Z6
	VFMADD231PD Z22, Z18, Z10
	VFMADD231PD Z22, Z19, Z14
	VMOVUPD (BX)(AX*1), Z23
	VFMADD231PD Z23, Z16, Z3
	VFMADD231PD Z23, Z17, Z7
	VFMADD231PD Z23, Z18, Z11
	VFMADD231PD Z23, Z19, Z15
	ADDQ $64, AX
	DECQ CX
	JNE  d44loop

d44done:
	MOVQ acc+56(FP), DX
	VMOVUPD Z0, (DX)
	VMOVUPD Z1, 64(DX)
	VMOVUPD Z2, 128(DX)
	VMOVUPD Z3, 192(DX)
	VMOVUPD Z4, 256(DX)
	VMOVUPD Z5, 320(DX)
	VMOVUPD Z6, 384(DX)
	VMOVUPD Z7, 448(DX)
	VMOVUPD Z8, 512(DX)
	VMOVUPD Z9, 576(DX)
	VMOVUPD Z10, 640(DX)
	VMOVUPD Z11, 704(DX)
	VMOVUPD Z12, 768(DX)
	VMOVUPD Z13, 832(DX)
	VMOVUPD Z14, 896(DX)
	VMOVUPD Z15, 960(DX)
	VZEROUPPER
	RET

// func gtxTilesAVX512(gp *float64, x *float64, xStrideBytes, rows int, out *float64, outStrideBytes, ntiles, nc int)
//
// For each tile t < ntiles of 32 columns (x and out advance 256 bytes per
// tile) and classes k < 4: acc[k] = Σ_{r<rows} gp[4r+k]·x[r][tile] (fused,
// in row order, from zero; rows of x xStrideBytes apart), then
// out[k][tile] += acc[k] for k < nc (rows of out outStrideBytes apart).
// Sixteen accumulators: each row costs four broadcasts and four loads of x
// for sixteen FMAs.
TEXT ·gtxTilesAVX512(SB), NOSPLIT, $0-64
	MOVQ gp+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ xStrideBytes+16(FP), R8
	MOVQ rows+24(FP), R9
	MOVQ out+32(FP), R10
	MOVQ outStrideBytes+40(FP), R11
	MOVQ ntiles+48(FP), R12
	MOVQ nc+56(FP), R13
	TESTQ R12, R12
	JEQ   gtdone
	TESTQ R9, R9
	JEQ   gtdone

gttile:
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z4, Z4, Z4
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	VXORPD Z8, Z8, Z8
	VXORPD Z9, Z9, Z9
	VXORPD Z10, Z10, Z10
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12
	VXORPD Z13, Z13, Z13
	VXORPD Z14, Z14, Z14
	VXORPD Z15, Z15, Z15
	MOVQ DI, DX
	MOVQ SI, BX
	MOVQ R9, CX

gtrow:
	VMOVUPD (DX), Z16
	VMOVUPD 64(DX), Z17
	VMOVUPD 128(DX), Z18
	VMOVUPD 192(DX), Z19
	VBROADCASTSD (BX), Z20
	VBROADCASTSD 8(BX), Z21
	VBROADCASTSD 16(BX), Z22
	VBROADCASTSD 24(BX), Z23
	VFMADD231PD Z16, Z20, Z0
	VFMADD231PD Z17, Z20, Z1
	VFMADD231PD Z18, Z20, Z2
	VFMADD231PD Z19, Z20, Z3
	VFMADD231PD Z16, Z21, Z4
	VFMADD231PD Z17, Z21, Z5
	VFMADD231PD Z18, Z21, Z6
	VFMADD231PD Z19, Z21, Z7
	VFMADD231PD Z16, Z22, Z8
	VFMADD231PD Z17, Z22, Z9
	VFMADD231PD Z18, Z22, Z10
	VFMADD231PD Z19, Z22, Z11
	VFMADD231PD Z16, Z23, Z12
	VFMADD231PD Z17, Z23, Z13
	VFMADD231PD Z18, Z23, Z14
	VFMADD231PD Z19, Z23, Z15
	ADDQ R8, DX
	ADDQ $32, BX
	DECQ CX
	JNE  gtrow

	// out[k] += acc[k] for k < nc
	MOVQ R10, AX
	VADDPD (AX), Z0, Z0
	VADDPD 64(AX), Z1, Z1
	VADDPD 128(AX), Z2, Z2
	VADDPD 192(AX), Z3, Z3
	VMOVUPD Z0, (AX)
	VMOVUPD Z1, 64(AX)
	VMOVUPD Z2, 128(AX)
	VMOVUPD Z3, 192(AX)
	CMPQ R13, $2
	JLT  gtnext
	ADDQ R11, AX
	VADDPD (AX), Z4, Z4
	VADDPD 64(AX), Z5, Z5
	VADDPD 128(AX), Z6, Z6
	VADDPD 192(AX), Z7, Z7
	VMOVUPD Z4, (AX)
	VMOVUPD Z5, 64(AX)
	VMOVUPD Z6, 128(AX)
	VMOVUPD Z7, 192(AX)
	CMPQ R13, $3
	JLT  gtnext
	ADDQ R11, AX
	VADDPD (AX), Z8, Z8
	VADDPD 64(AX), Z9, Z9
	VADDPD 128(AX), Z10, Z10
	VADDPD 192(AX), Z11, Z11
	VMOVUPD Z8, (AX)
	VMOVUPD Z9, 64(AX)
	VMOVUPD Z10, 128(AX)
	VMOVUPD Z11, 192(AX)
	CMPQ R13, $4
	JLT  gtnext
	ADDQ R11, AX
	VADDPD (AX), Z12, Z12
	VADDPD 64(AX), Z13, Z13
	VADDPD 128(AX), Z14, Z14
	VADDPD 192(AX), Z15, Z15
	VMOVUPD Z12, (AX)
	VMOVUPD Z13, 64(AX)
	VMOVUPD Z14, 128(AX)
	VMOVUPD Z15, 192(AX)

gtnext:
	ADDQ $256, DI
	ADDQ $256, R10
	DECQ R12
	JNE  gttile

gtdone:
	VZEROUPPER
	RET

// func gtxTileMaskedAVX512(gp *float64, x *float64, xStrideBytes, rows int, out *float64, outStrideBytes, nc int, masks uint64)
//
// gtxTilesAVX512 for one tile of fewer than 32 columns: block i < 4 of the
// tile loads and stores only the lanes set in byte i of masks (zero for a
// block past the end), so nothing outside the columns is read or written.
TEXT ·gtxTileMaskedAVX512(SB), NOSPLIT, $0-64
	MOVQ gp+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ xStrideBytes+16(FP), R8
	MOVQ rows+24(FP), R9
	MOVQ out+32(FP), R10
	MOVQ outStrideBytes+40(FP), R11
	MOVQ nc+48(FP), R13
	MOVQ masks+56(FP), AX
	KMOVW AX, K1
	SHRQ $8, AX
	KMOVW AX, K2
	SHRQ $8, AX
	KMOVW AX, K3
	SHRQ $8, AX
	KMOVW AX, K4
	TESTQ R9, R9
	JEQ   gmdone
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z4, Z4, Z4
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	VXORPD Z8, Z8, Z8
	VXORPD Z9, Z9, Z9
	VXORPD Z10, Z10, Z10
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12
	VXORPD Z13, Z13, Z13
	VXORPD Z14, Z14, Z14
	VXORPD Z15, Z15, Z15
	MOVQ DI, DX
	MOVQ SI, BX
	MOVQ R9, CX

gmrow:
	VMOVUPD.Z (DX), K1, Z16
	VMOVUPD.Z 64(DX), K2, Z17
	VMOVUPD.Z 128(DX), K3, Z18
	VMOVUPD.Z 192(DX), K4, Z19
	VBROADCASTSD (BX), Z20
	VBROADCASTSD 8(BX), Z21
	VBROADCASTSD 16(BX), Z22
	VBROADCASTSD 24(BX), Z23
	VFMADD231PD Z16, Z20, Z0
	VFMADD231PD Z17, Z20, Z1
	VFMADD231PD Z18, Z20, Z2
	VFMADD231PD Z19, Z20, Z3
	VFMADD231PD Z16, Z21, Z4
	VFMADD231PD Z17, Z21, Z5
	VFMADD231PD Z18, Z21, Z6
	VFMADD231PD Z19, Z21, Z7
	VFMADD231PD Z16, Z22, Z8
	VFMADD231PD Z17, Z22, Z9
	VFMADD231PD Z18, Z22, Z10
	VFMADD231PD Z19, Z22, Z11
	VFMADD231PD Z16, Z23, Z12
	VFMADD231PD Z17, Z23, Z13
	VFMADD231PD Z18, Z23, Z14
	VFMADD231PD Z19, Z23, Z15
	ADDQ R8, DX
	ADDQ $32, BX
	DECQ CX
	JNE  gmrow

	MOVQ R10, AX
	VMOVUPD.Z (AX), K1, Z24
	VMOVUPD.Z 64(AX), K2, Z25
	VMOVUPD.Z 128(AX), K3, Z26
	VMOVUPD.Z 192(AX), K4, Z27
	VADDPD Z24, Z0, Z0
	VADDPD Z25, Z1, Z1
	VADDPD Z26, Z2, Z2
	VADDPD Z27, Z3, Z3
	VMOVUPD Z0, K1, (AX)
	VMOVUPD Z1, K2, 64(AX)
	VMOVUPD Z2, K3, 128(AX)
	VMOVUPD Z3, K4, 192(AX)
	CMPQ R13, $2
	JLT  gmdone
	ADDQ R11, AX
	VMOVUPD.Z (AX), K1, Z24
	VMOVUPD.Z 64(AX), K2, Z25
	VMOVUPD.Z 128(AX), K3, Z26
	VMOVUPD.Z 192(AX), K4, Z27
	VADDPD Z24, Z4, Z4
	VADDPD Z25, Z5, Z5
	VADDPD Z26, Z6, Z6
	VADDPD Z27, Z7, Z7
	VMOVUPD Z4, K1, (AX)
	VMOVUPD Z5, K2, 64(AX)
	VMOVUPD Z6, K3, 128(AX)
	VMOVUPD Z7, K4, 192(AX)
	CMPQ R13, $3
	JLT  gmdone
	ADDQ R11, AX
	VMOVUPD.Z (AX), K1, Z24
	VMOVUPD.Z 64(AX), K2, Z25
	VMOVUPD.Z 128(AX), K3, Z26
	VMOVUPD.Z 192(AX), K4, Z27
	VADDPD Z24, Z8, Z8
	VADDPD Z25, Z9, Z9
	VADDPD Z26, Z10, Z10
	VADDPD Z27, Z11, Z11
	VMOVUPD Z8, K1, (AX)
	VMOVUPD Z9, K2, 64(AX)
	VMOVUPD Z10, K3, 128(AX)
	VMOVUPD Z11, K4, 192(AX)
	CMPQ R13, $4
	JLT  gmdone
	ADDQ R11, AX
	VMOVUPD.Z (AX), K1, Z24
	VMOVUPD.Z 64(AX), K2, Z25
	VMOVUPD.Z 128(AX), K3, Z26
	VMOVUPD.Z 192(AX), K4, Z27
	VADDPD Z24, Z12, Z12
	VADDPD Z25, Z13, Z13
	VADDPD Z26, Z14, Z14
	VADDPD Z27, Z15, Z15
	VMOVUPD Z12, K1, (AX)
	VMOVUPD Z13, K2, 64(AX)
	VMOVUPD Z14, K3, 128(AX)
	VMOVUPD Z15, K4, 192(AX)

gmdone:
	VZEROUPPER
	RET

// func args2AVX512(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int)
//
// argsAVX512 with two chains per block: even k into Z0, odd k into Z1 (fused,
// from zero), q = Z0 + Z1. d0 ≥ 1.
TEXT ·args2AVX512(SB), NOSPLIT, $0-48
	MOVQ z+0(FP), SI
	MOVQ d0+8(FP), R8
	MOVQ omegaT+16(FP), DI
	MOVQ strideBytes+24(FP), R9
	MOVQ q+32(FP), DX
	MOVQ nb+40(FP), CX
	TESTQ CX, CX
	JEQ   a2done

a2blk:
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ R8, R12
	SHRQ $1, R12
	JEQ  a2odd

a2pair:
	VBROADCASTSD (R11), Z4
	VBROADCASTSD 8(R11), Z5
	LEAQ (R10)(R9*1), R13
	VFMADD231PD (R10), Z4, Z0
	VFMADD231PD (R13), Z5, Z1
	ADDQ $16, R11
	LEAQ (R10)(R9*2), R10
	DECQ R12
	JNE  a2pair

a2odd:
	TESTQ $1, R8
	JEQ   a2sum
	VBROADCASTSD (R11), Z4
	VFMADD231PD (R10), Z4, Z0

a2sum:
	VADDPD Z1, Z0, Z0
	VMOVUPD Z0, (DX)
	ADDQ $64, DI
	ADDQ $64, DX
	DECQ CX
	JNE  a2blk

a2done:
	VZEROUPPER
	RET

// func sinCosAddAVX512(arg, sinB, cosB *float64, scale float64, o, e *float64) bool
//
// One block of the RFF map from its arguments δ: false if a lane has
// |δ| > 0.5 or a NaN; else sin δ, cos δ (MATH7), o = scale·(cos b·cos δ −
// sin b·sin δ), e = 0 − scale·(sin b·cos δ + cos b·sin δ).
TEXT ·sinCosAddAVX512(SB), NOSPLIT, $0-49
	MOVQ arg+0(FP), SI
	MOVQ sinB+8(FP), R9
	MOVQ cosB+16(FP), R10
	VBROADCASTSD scale+24(FP), Z28
	MOVQ o+32(FP), R11
	MOVQ e+40(FP), R12
	VMOVUPD (SI), Z3
	VANDPD.BCST vecK<>+152(SB), Z3, Z4
	VCMPPD.BCST $0x1e, vecK<>+48(SB), Z4, K1
	VCMPPD $0x03, Z3, Z3, K2
	KORW K2, K1, K1
	KORTESTW K1, K1
	JNE scbad
	MATH7(Z3, Z7, Z8, Z9)
	VMOVUPD (R9), Z0
	VMOVUPD (R10), Z4
	VMULPD Z9, Z0, Z10
	VMULPD Z8, Z4, Z11
	VADDPD Z11, Z10, Z10
	VMULPD Z9, Z4, Z11
	VMULPD Z8, Z0, Z2
	VSUBPD Z2, Z11, Z11
	VMULPD Z11, Z28, Z2
	VMOVUPD Z2, (R11)
	VMULPD Z10, Z28, Z2
	VXORPD Z5, Z5, Z5
	VSUBPD Z2, Z5, Z2
	VMOVUPD Z2, (R12)
	MOVB $1, ret+48(FP)
	VZEROUPPER
	RET

scbad:
	MOVB $0, ret+48(FP)
	VZEROUPPER
	RET

// func spmmRowAVX512(idx *int32, val *float64, nnz int, src *float64, strideBytes int, d *float64, nb int, accumulate int, limit int) bool
//
// One row of a sparse×dense product (SpMMRow) on nb blocks of eight columns,
// four blocks at a time, then one: acc = d (accumulate ≠ 0) or 0, then for
// each entry q in order acc = acc + val[q]·src[idx[q]] (the product rounded
// first, never fused). It reports false, before it has stored anything,
// if an idx[q] is not a row below limit (as an unsigned number: a negative
// one is not): the first pass over the entries checks each index as it
// loads it, instead of a pass of its own.
TEXT ·spmmRowAVX512(SB), NOSPLIT, $0-73
	MOVQ limit+64(FP), R12
	MOVQ idx+0(FP), SI
	MOVQ val+8(FP), R8
	MOVQ nnz+16(FP), R9
	MOVQ src+24(FP), DI
	MOVQ strideBytes+32(FP), R10
	MOVQ d+40(FP), DX
	MOVQ nb+48(FP), CX
	MOVQ accumulate+56(FP), R11

zsp4:
	CMPQ CX, $4
	JLT  zsp1
	TESTQ R11, R11
	JEQ   zsp4zero
	VMOVUPD (DX), Z0
	VMOVUPD 64(DX), Z1
	VMOVUPD 128(DX), Z2
	VMOVUPD 192(DX), Z3
	JMP   zsp4go

zsp4zero:
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3

zsp4go:
	XORQ BX, BX
	TESTQ R9, R9
	JEQ   zsp4store

zsp4q:
	MOVLQSX (SI)(BX*4), AX
	CMPQ AX, R12
	JAE  zspbad
	IMULQ R10, AX
	ADDQ DI, AX
	VBROADCASTSD (R8)(BX*8), Z8
	VMULPD (AX), Z8, Z9
	VMULPD 64(AX), Z8, Z10
	VMULPD 128(AX), Z8, Z11
	VMULPD 192(AX), Z8, Z12
	VADDPD Z9, Z0, Z0
	VADDPD Z10, Z1, Z1
	VADDPD Z11, Z2, Z2
	VADDPD Z12, Z3, Z3
	INCQ BX
	CMPQ BX, R9
	JLT  zsp4q

zsp4store:
	VMOVUPD Z0, (DX)
	VMOVUPD Z1, 64(DX)
	VMOVUPD Z2, 128(DX)
	VMOVUPD Z3, 192(DX)
	ADDQ $256, DX
	ADDQ $256, DI
	SUBQ $4, CX
	JMP  zsp4

zsp1:
	TESTQ CX, CX
	JEQ   zspdone
	TESTQ R11, R11
	JEQ   zsp1zero
	VMOVUPD (DX), Z0
	JMP   zsp1go

zsp1zero:
	VXORPD Z0, Z0, Z0

zsp1go:
	XORQ BX, BX
	TESTQ R9, R9
	JEQ   zsp1store

zsp1q:
	MOVLQSX (SI)(BX*4), AX
	CMPQ AX, R12
	JAE  zspbad
	IMULQ R10, AX
	ADDQ DI, AX
	VBROADCASTSD (R8)(BX*8), Z8
	VMULPD (AX), Z8, Z9
	VADDPD Z9, Z0, Z0
	INCQ BX
	CMPQ BX, R9
	JLT  zsp1q

zsp1store:
	VMOVUPD Z0, (DX)
	ADDQ $64, DX
	ADDQ $64, DI
	DECQ CX
	JMP  zsp1

zspdone:
	MOVB $1, ret+72(FP)
	VZEROUPPER
	RET

zspbad:
	MOVB $0, ret+72(FP)
	VZEROUPPER
	RET

// func gyw2AVX512(g0, g1, w *float64, wstrideBytes, nc int, o0, o1 *float64, nb int)
//
// GyW for two rows over nb blocks of eight columns, four blocks (32
// columns) at a time, then one: row 0's sums in Z0–Z3, row 1's in Z4–Z7,
// class k's strip of w in Z10–Z13, gy[0][k] and gy[1][k] broadcast in Z8
// and Z9; from zero, one fused multiply-add per class in class order
// (nc ≥ 1). Each strip is read from L1 for the second row; 0.75 loads
// per multiply-add.
TEXT ·gyw2AVX512(SB), NOSPLIT, $0-64
	MOVQ g0+0(FP), SI
	MOVQ g1+8(FP), DI
	MOVQ w+16(FP), R8
	MOVQ wstrideBytes+24(FP), R9
	MOVQ nc+32(FP), R12
	MOVQ o0+40(FP), R13
	MOVQ o1+48(FP), DX
	MOVQ nb+56(FP), CX

zgw4:
	CMPQ CX, $4
	JLT  zgw1
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z4, Z4, Z4
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	MOVQ R8, R11
	XORQ R10, R10

zgw4k:
	VBROADCASTSD (SI)(R10*8), Z8
	VBROADCASTSD (DI)(R10*8), Z9
	VMOVUPD (R11), Z10
	VMOVUPD 64(R11), Z11
	VMOVUPD 128(R11), Z12
	VMOVUPD 192(R11), Z13
	VFMADD231PD Z10, Z8, Z0
	VFMADD231PD Z11, Z8, Z1
	VFMADD231PD Z12, Z8, Z2
	VFMADD231PD Z13, Z8, Z3
	VFMADD231PD Z10, Z9, Z4
	VFMADD231PD Z11, Z9, Z5
	VFMADD231PD Z12, Z9, Z6
	VFMADD231PD Z13, Z9, Z7
	ADDQ R9, R11
	INCQ R10
	CMPQ R10, R12
	JLT  zgw4k
	VMOVUPD Z0, (R13)
	VMOVUPD Z1, 64(R13)
	VMOVUPD Z2, 128(R13)
	VMOVUPD Z3, 192(R13)
	VMOVUPD Z4, (DX)
	VMOVUPD Z5, 64(DX)
	VMOVUPD Z6, 128(DX)
	VMOVUPD Z7, 192(DX)
	ADDQ $256, R8
	ADDQ $256, R13
	ADDQ $256, DX
	SUBQ $4, CX
	JMP  zgw4

zgw1:
	TESTQ CX, CX
	JEQ   zgwdone
	VXORPD Z0, Z0, Z0
	VXORPD Z4, Z4, Z4
	MOVQ R8, R11
	XORQ R10, R10

zgw1k:
	VBROADCASTSD (SI)(R10*8), Z8
	VBROADCASTSD (DI)(R10*8), Z9
	VMOVUPD (R11), Z10
	VFMADD231PD Z10, Z8, Z0
	VFMADD231PD Z10, Z9, Z4
	ADDQ R9, R11
	INCQ R10
	CMPQ R10, R12
	JLT  zgw1k
	VMOVUPD Z0, (R13)
	VMOVUPD Z4, (DX)
	ADDQ $64, R8
	ADDQ $64, R13
	ADDQ $64, DX
	DECQ CX
	JMP  zgw1

zgwdone:
	VZEROUPPER
	RET

// func axpyRows4AVX512(part *float64, strideBytes int, gy *float64, gstrideBytes int, phi *float64, pstrideBytes, rows, nb int)
//
// AxpyRows for four classes, four blocks of eight columns at a time, then
// one: the blocks of the four classes' rows of part in Z0–Z15 (class k,
// block b in Z(4k+b)), loaded once; then for each row r in order gy[r][k]
// broadcast in Z16–Z19 and the blocks of φ's row r in Z20–Z23, one fused
// multiply-add per register, as axpyAVX2 row by row; then stored once.
TEXT ·axpyRows4AVX512(SB), NOSPLIT, $0-64
	MOVQ part+0(FP), SI
	MOVQ strideBytes+8(FP), R8
	MOVQ gy+16(FP), R9
	MOVQ gstrideBytes+24(FP), R10
	MOVQ phi+32(FP), R11
	MOVQ pstrideBytes+40(FP), R12
	MOVQ rows+48(FP), R13
	MOVQ nb+56(FP), CX
	TESTQ R13, R13
	JEQ   zarxdone

zarx4:
	CMPQ CX, $4
	JLT  zarx1
	LEAQ (SI)(R8*2), AX
	VMOVUPD (SI), Z0
	VMOVUPD 64(SI), Z1
	VMOVUPD 128(SI), Z2
	VMOVUPD 192(SI), Z3
	VMOVUPD (SI)(R8*1), Z4
	VMOVUPD 64(SI)(R8*1), Z5
	VMOVUPD 128(SI)(R8*1), Z6
	VMOVUPD 192(SI)(R8*1), Z7
	VMOVUPD (AX), Z8
	VMOVUPD 64(AX), Z9
	VMOVUPD 128(AX), Z10
	VMOVUPD 192(AX), Z11
	VMOVUPD (AX)(R8*1), Z12
	VMOVUPD 64(AX)(R8*1), Z13
	VMOVUPD 128(AX)(R8*1), Z14
	VMOVUPD 192(AX)(R8*1), Z15
	MOVQ R9, DI
	MOVQ R11, DX
	MOVQ R13, BX

zarx4row:
	VBROADCASTSD (DI), Z16
	VBROADCASTSD 8(DI), Z17
	VBROADCASTSD 16(DI), Z18
	VBROADCASTSD 24(DI), Z19
	VMOVUPD (DX), Z20
	VMOVUPD 64(DX), Z21
	VMOVUPD 128(DX), Z22
	VMOVUPD 192(DX), Z23
	VFMADD231PD Z20, Z16, Z0
	VFMADD231PD Z21, Z16, Z1
	VFMADD231PD Z22, Z16, Z2
	VFMADD231PD Z23, Z16, Z3
	VFMADD231PD Z20, Z17, Z4
	VFMADD231PD Z21, Z17, Z5
	VFMADD231PD Z22, Z17, Z6
	VFMADD231PD Z23, Z17, Z7
	VFMADD231PD Z20, Z18, Z8
	VFMADD231PD Z21, Z18, Z9
	VFMADD231PD Z22, Z18, Z10
	VFMADD231PD Z23, Z18, Z11
	VFMADD231PD Z20, Z19, Z12
	VFMADD231PD Z21, Z19, Z13
	VFMADD231PD Z22, Z19, Z14
	VFMADD231PD Z23, Z19, Z15
	ADDQ R10, DI
	ADDQ R12, DX
	DECQ BX
	JNE  zarx4row
	VMOVUPD Z0, (SI)
	VMOVUPD Z1, 64(SI)
	VMOVUPD Z2, 128(SI)
	VMOVUPD Z3, 192(SI)
	VMOVUPD Z4, (SI)(R8*1)
	VMOVUPD Z5, 64(SI)(R8*1)
	VMOVUPD Z6, 128(SI)(R8*1)
	VMOVUPD Z7, 192(SI)(R8*1)
	VMOVUPD Z8, (AX)
	VMOVUPD Z9, 64(AX)
	VMOVUPD Z10, 128(AX)
	VMOVUPD Z11, 192(AX)
	VMOVUPD Z12, (AX)(R8*1)
	VMOVUPD Z13, 64(AX)(R8*1)
	VMOVUPD Z14, 128(AX)(R8*1)
	VMOVUPD Z15, 192(AX)(R8*1)
	ADDQ $256, SI
	ADDQ $256, R11
	SUBQ $4, CX
	JMP  zarx4

zarx1:
	TESTQ CX, CX
	JEQ   zarxdone
	LEAQ (SI)(R8*2), AX
	VMOVUPD (SI), Z0
	VMOVUPD (SI)(R8*1), Z4
	VMOVUPD (AX), Z8
	VMOVUPD (AX)(R8*1), Z12
	MOVQ R9, DI
	MOVQ R11, DX
	MOVQ R13, BX

zarx1row:
	VBROADCASTSD (DI), Z16
	VBROADCASTSD 8(DI), Z17
	VBROADCASTSD 16(DI), Z18
	VBROADCASTSD 24(DI), Z19
	VMOVUPD (DX), Z20
	VFMADD231PD Z20, Z16, Z0
	VFMADD231PD Z20, Z17, Z4
	VFMADD231PD Z20, Z18, Z8
	VFMADD231PD Z20, Z19, Z12
	ADDQ R10, DI
	ADDQ R12, DX
	DECQ BX
	JNE  zarx1row
	VMOVUPD Z0, (SI)
	VMOVUPD Z4, (SI)(R8*1)
	VMOVUPD Z8, (AX)
	VMOVUPD Z12, (AX)(R8*1)
	ADDQ $64, SI
	ADDQ $64, R11
	DECQ CX
	JMP  zarx1

zarxdone:
	VZEROUPPER
	RET

// Constants of the attention kernels: Exp's (exp.go) and the LeakyReLU's.
DATA attnK<>+0(SB)/8, $0x3ff71547652b82fe // log2 e
DATA attnK<>+8(SB)/8, $0x3fe62e42fefa3000 // ln 2, upper part
DATA attnK<>+16(SB)/8, $0x3d53de6af278ece6 // ln 2, lower part
DATA attnK<>+24(SB)/8, $0x3fb0000000000000 // 1/16
DATA attnK<>+32(SB)/8, $0x3efa01a01a01a01a // 1/8!
DATA attnK<>+40(SB)/8, $0x3f2a01a01a01a01a // 1/7!
DATA attnK<>+48(SB)/8, $0x3f56c16c16c16c17 // 1/6!
DATA attnK<>+56(SB)/8, $0x3f81111111111111 // 1/5!
DATA attnK<>+64(SB)/8, $0x3fa5555555555555 // 1/4!
DATA attnK<>+72(SB)/8, $0x3fc5555555555555 // 1/3!
DATA attnK<>+80(SB)/8, $0x3fe0000000000000 // 1/2
DATA attnK<>+88(SB)/8, $0x3ff0000000000000 // 1
DATA attnK<>+96(SB)/8, $0x4000000000000000 // 2
DATA attnK<>+104(SB)/8, $0x00000000000003ff // 1023 (integer)
DATA attnK<>+112(SB)/8, $0xc086200000000000 // expLo −708
DATA attnK<>+120(SB)/8, $0x4086200000000000 // expHi 708
DATA attnK<>+128(SB)/8, $0xfff0000000000000 // −Inf
DATA attnK<>+136(SB)/8, $0x0000000000000001 // 1 (integer)
GLOBL attnK<>(SB), RODATA|NOPTR, $144

// EXP8 is Exp (exp.go) on the eight lanes of x, for arguments in
// [expLo, expHi]: k = round(x·log2 e) (ky, as int32), the reduction by
// k·ln 2 in two fused steps, the polynomial p, four squarings, and the
// product by 2^k. t, p and s are scratch.
#define EXP8(x, t, ky, p, s) \
	VMULPD.BCST attnK<>+0(SB), x, t; \
	VCVTPD2DQ t, ky; \
	VCVTDQ2PD ky, t; \
	VFNMADD231PD.BCST attnK<>+8(SB), t, x; \
	VFNMADD231PD.BCST attnK<>+16(SB), t, x; \
	VMULPD.BCST attnK<>+24(SB), x, x; \
	VBROADCASTSD attnK<>+32(SB), p; \
	VFMADD213PD.BCST attnK<>+40(SB), x, p; \
	VFMADD213PD.BCST attnK<>+48(SB), x, p; \
	VFMADD213PD.BCST attnK<>+56(SB), x, p; \
	VFMADD213PD.BCST attnK<>+64(SB), x, p; \
	VFMADD213PD.BCST attnK<>+72(SB), x, p; \
	VFMADD213PD.BCST attnK<>+80(SB), x, p; \
	VFMADD213PD.BCST attnK<>+88(SB), x, p; \
	VMULPD p, x, x; \
	VADDPD.BCST attnK<>+96(SB), x, p; \
	VMULPD p, x, x; \
	VADDPD.BCST attnK<>+96(SB), x, p; \
	VMULPD p, x, x; \
	VADDPD.BCST attnK<>+96(SB), x, p; \
	VMULPD p, x, x; \
	VADDPD.BCST attnK<>+96(SB), x, p; \
	VFMADD213PD.BCST attnK<>+88(SB), p, x; \
	VPMOVSXDQ ky, s; \
	VPADDQ.BCST attnK<>+104(SB), s, s; \
	VPSLLQ $52, s, s; \
	VMULPD s, x, x

// func attnSoftmax8AVX512(idx *int32, deg int, di, src *float64, limit int, slope float64, al *float64, mask *uint8, factor float64, da *float64) int
//
// AttnSoftmaxRow for eight heads, one per lane (deg ≥ 1): the scores and
// their running maximum (Z3) in a first pass over the edges, Exp of each
// score less the maximum and their sum (Z6) in a second, the quotients
// (and the dropped-out coefficients) in a third. It returns 2, before it
// has stored anything, if a source is not a row below limit; 1 if an
// argument of Exp was outside [expLo, expHi] or a NaN (K7 collects the
// lanes in range; the caller recomputes the row); 0 when done.
TEXT ·attnSoftmax8AVX512(SB), NOSPLIT, $0-88
	MOVQ idx+0(FP), SI
	MOVQ deg+8(FP), CX
	MOVQ di+16(FP), R8
	MOVQ src+24(FP), DI
	MOVQ limit+32(FP), R12
	VBROADCASTSD slope+40(FP), Z1
	MOVQ al+48(FP), DX
	MOVQ mask+56(FP), R9
	VBROADCASTSD factor+64(FP), Z2
	MOVQ da+72(FP), R10
	VMOVUPD (R8), Z0
	VXORPD Z15, Z15, Z15
	VBROADCASTSD attnK<>+88(SB), Z14
	VBROADCASTSD attnK<>+128(SB), Z3

	// The sources are checked before anything is stored.
	XORQ BX, BX

asck:
	MOVLQSX (SI)(BX*4), AX
	CMPQ AX, R12
	JAE  asbad
	INCQ BX
	CMPQ BX, CX
	JLT  asck

	// Scores, LeakyReLU (e·1 or e·slope), running maximum.
	XORQ BX, BX
	MOVQ DX, R11

as1:
	MOVLQSX (SI)(BX*4), AX
	SHLQ $6, AX
	VADDPD (DI)(AX*1), Z0, Z4
	VCMPPD $0x1e, Z15, Z4, K1
	VBLENDMPD Z14, Z1, K1, Z5
	VMULPD Z5, Z4, Z4
	VMOVUPD Z4, (R11)
	VMAXPD Z3, Z4, Z3
	ADDQ $64, R11
	INCQ BX
	CMPQ BX, CX
	JLT  as1

	// Exp(e − max) and the sum.
	KXNORB K7, K7, K7
	VXORPD Z6, Z6, Z6
	MOVQ DX, R11
	MOVQ CX, BX

as2:
	VMOVUPD (R11), Z4
	VSUBPD Z3, Z4, Z4
	VCMPPD.BCST $0x1d, attnK<>+112(SB), Z4, K1
	VCMPPD.BCST $0x12, attnK<>+120(SB), Z4, K2
	KANDB K1, K7, K7
	KANDB K2, K7, K7
	EXP8(Z4, Z7, Y8, Z9, Z10)
	VMOVUPD Z4, (R11)
	VADDPD Z4, Z6, Z6
	ADDQ $64, R11
	DECQ BX
	JNE  as2
	KORTESTB K7, K7
	JCC  asrange

	// The quotients, and with a mask the dropped-out coefficients
	// al·(factor or 0).
	MOVQ DX, R11
	MOVQ CX, BX
	TESTQ R9, R9
	JEQ   as3

as3m:
	VMOVUPD (R11), Z4
	VDIVPD Z6, Z4, Z4
	VMOVUPD Z4, (R11)
	VPMOVZXBQ (R9), Z11
	VPTESTMQ.BCST attnK<>+136(SB), Z11, K3
	VBLENDMPD Z2, Z15, K3, Z12
	VMULPD Z12, Z4, Z12
	VMOVUPD Z12, (R10)
	ADDQ $64, R11
	ADDQ $8, R9
	ADDQ $64, R10
	DECQ BX
	JNE  as3m
	JMP  asdone

as3:
	VMOVUPD (R11), Z4
	VDIVPD Z6, Z4, Z4
	VMOVUPD Z4, (R11)
	ADDQ $64, R11
	DECQ BX
	JNE  as3

asdone:
	MOVQ $0, ret+80(FP)
	VZEROUPPER
	RET

asrange:
	MOVQ $1, ret+80(FP)
	VZEROUPPER
	RET

asbad:
	MOVQ $2, ret+80(FP)
	VZEROUPPER
	RET

// func attnAggregate8AVX512(idx *int32, deg int, w, src *float64, strideBytes, limit int, acc *float64, c, gcolBytes int) bool
//
// AttnAggregate for eight heads of c ≤ 8 columns: head m's sums in Z(m),
// loaded from acc[m·c:] under the mask K1 of c lanes; for each edge in
// order, w[p·8+m] broadcast times the source row's c columns at m·gcol
// (a masked load), rounded, then added. It returns false, before it has
// stored anything, if a source is not a row below limit.
TEXT ·attnAggregate8AVX512(SB), NOSPLIT, $0-73
	MOVQ idx+0(FP), SI
	MOVQ deg+8(FP), CX
	MOVQ w+16(FP), R8
	MOVQ src+24(FP), DI
	MOVQ strideBytes+32(FP), R10
	MOVQ limit+40(FP), R12
	MOVQ acc+48(FP), DX
	MOVQ c+56(FP), R11
	MOVQ gcolBytes+64(FP), R9
	XORQ BX, BX

agck:
	MOVLQSX (SI)(BX*4), AX
	CMPQ AX, R12
	JAE  agbad
	INCQ BX
	CMPQ BX, CX
	JLT  agck

	// K1: the low c lanes; R12: c·8 bytes, the stride of acc's heads.
	MOVQ CX, R13
	MOVQ R11, CX
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVB AX, K1
	MOVQ R13, CX
	MOVQ R11, R12
	SHLQ $3, R12
	MOVQ DX, AX
	VMOVUPD.Z (AX), K1, Z0
	ADDQ R12, AX
	VMOVUPD.Z (AX), K1, Z1
	ADDQ R12, AX
	VMOVUPD.Z (AX), K1, Z2
	ADDQ R12, AX
	VMOVUPD.Z (AX), K1, Z3
	ADDQ R12, AX
	VMOVUPD.Z (AX), K1, Z4
	ADDQ R12, AX
	VMOVUPD.Z (AX), K1, Z5
	ADDQ R12, AX
	VMOVUPD.Z (AX), K1, Z6
	ADDQ R12, AX
	VMOVUPD.Z (AX), K1, Z7
	XORQ BX, BX

agq:
	MOVLQSX (SI)(BX*4), AX
	IMULQ R10, AX
	ADDQ DI, AX
	VBROADCASTSD (R8), Z8
	VBROADCASTSD 8(R8), Z9
	VBROADCASTSD 16(R8), Z10
	VBROADCASTSD 24(R8), Z11
	VBROADCASTSD 32(R8), Z12
	VBROADCASTSD 40(R8), Z13
	VBROADCASTSD 48(R8), Z14
	VBROADCASTSD 56(R8), Z15
	VMOVUPD.Z (AX), K1, Z16
	ADDQ R9, AX
	VMOVUPD.Z (AX), K1, Z17
	ADDQ R9, AX
	VMOVUPD.Z (AX), K1, Z18
	ADDQ R9, AX
	VMOVUPD.Z (AX), K1, Z19
	ADDQ R9, AX
	VMOVUPD.Z (AX), K1, Z20
	ADDQ R9, AX
	VMOVUPD.Z (AX), K1, Z21
	ADDQ R9, AX
	VMOVUPD.Z (AX), K1, Z22
	ADDQ R9, AX
	VMOVUPD.Z (AX), K1, Z23
	VMULPD Z16, Z8, Z8
	VMULPD Z17, Z9, Z9
	VMULPD Z18, Z10, Z10
	VMULPD Z19, Z11, Z11
	VMULPD Z20, Z12, Z12
	VMULPD Z21, Z13, Z13
	VMULPD Z22, Z14, Z14
	VMULPD Z23, Z15, Z15
	VADDPD Z8, Z0, Z0
	VADDPD Z9, Z1, Z1
	VADDPD Z10, Z2, Z2
	VADDPD Z11, Z3, Z3
	VADDPD Z12, Z4, Z4
	VADDPD Z13, Z5, Z5
	VADDPD Z14, Z6, Z6
	VADDPD Z15, Z7, Z7
	ADDQ $64, R8
	INCQ BX
	CMPQ BX, CX
	JLT  agq

	MOVQ DX, AX
	VMOVUPD Z0, K1, (AX)
	ADDQ R12, AX
	VMOVUPD Z1, K1, (AX)
	ADDQ R12, AX
	VMOVUPD Z2, K1, (AX)
	ADDQ R12, AX
	VMOVUPD Z3, K1, (AX)
	ADDQ R12, AX
	VMOVUPD Z4, K1, (AX)
	ADDQ R12, AX
	VMOVUPD Z5, K1, (AX)
	ADDQ R12, AX
	VMOVUPD Z6, K1, (AX)
	ADDQ R12, AX
	VMOVUPD Z7, K1, (AX)
	MOVB $1, ret+72(FP)
	VZEROUPPER
	RET

agbad:
	MOVB $0, ret+72(FP)
	VZEROUPPER
	RET

// func scatterRowAVX512(idx *int32, val *float64, nnz int, src, dst *float64, strideBytes, nb int)
//
// ScatterRow on nb blocks of eight columns (nnz ≥ 1, indices checked by
// the caller), four blocks at a time, then one: src's blocks stay in
// Z0–Z3; for each entry in order its value is broadcast, multiplied by
// them (rounded) and added to the row's blocks in memory, so that two
// entries of one row add in order.
TEXT ·scatterRowAVX512(SB), NOSPLIT, $0-56
	MOVQ idx+0(FP), SI
	MOVQ val+8(FP), R8
	MOVQ nnz+16(FP), R9
	MOVQ src+24(FP), R11
	MOVQ dst+32(FP), DI
	MOVQ strideBytes+40(FP), R10
	MOVQ nb+48(FP), CX

sc4:
	CMPQ CX, $4
	JLT  sc1
	VMOVUPD (R11), Z0
	VMOVUPD 64(R11), Z1
	VMOVUPD 128(R11), Z2
	VMOVUPD 192(R11), Z3
	XORQ BX, BX

sc4q:
	MOVLQSX (SI)(BX*4), AX
	IMULQ R10, AX
	ADDQ DI, AX
	VBROADCASTSD (R8)(BX*8), Z8
	VMULPD Z0, Z8, Z9
	VMULPD Z1, Z8, Z10
	VMULPD Z2, Z8, Z11
	VMULPD Z3, Z8, Z12
	VADDPD (AX), Z9, Z9
	VADDPD 64(AX), Z10, Z10
	VADDPD 128(AX), Z11, Z11
	VADDPD 192(AX), Z12, Z12
	VMOVUPD Z9, (AX)
	VMOVUPD Z10, 64(AX)
	VMOVUPD Z11, 128(AX)
	VMOVUPD Z12, 192(AX)
	INCQ BX
	CMPQ BX, R9
	JLT  sc4q
	ADDQ $256, R11
	ADDQ $256, DI
	SUBQ $4, CX
	JMP  sc4

sc1:
	TESTQ CX, CX
	JEQ   scdone
	VMOVUPD (R11), Z0
	XORQ BX, BX

sc1q:
	MOVLQSX (SI)(BX*4), AX
	IMULQ R10, AX
	ADDQ DI, AX
	VBROADCASTSD (R8)(BX*8), Z8
	VMULPD Z0, Z8, Z9
	VADDPD (AX), Z9, Z9
	VMOVUPD Z9, (AX)
	INCQ BX
	CMPQ BX, R9
	JLT  sc1q
	ADDQ $64, R11
	ADDQ $64, DI
	DECQ CX
	JMP  sc1

scdone:
	VZEROUPPER
	RET

// func attnGrad8AVX512(idx *int32, deg int, gT, hT *float64, rowBytes, limit int, al *float64, mask *uint8, factor float64, di, src *float64, slope float64, gm, gdst *float64) bool
//
// AttnGradRow for eight heads, one per lane (deg ≥ 1): gT is the row's
// gradient as c blocks (column q of every head), hT the sources' features
// as rows of c blocks (rowBytes = 64c). The first pass computes each
// edge's ga (the dot product over q, from zero, then 0 + ·, the mask's
// factor) into gm and dot = Σ al·ga (Z3); the second the scores'
// gradients and their sum (Z7). It returns false, before it has stored
// anything, if a source is not a row below limit.
TEXT ·attnGrad8AVX512(SB), NOSPLIT, $0-113
	MOVQ idx+0(FP), SI
	MOVQ deg+8(FP), CX
	MOVQ gT+16(FP), R8
	MOVQ hT+24(FP), DI
	MOVQ rowBytes+32(FP), R10
	MOVQ limit+40(FP), R12
	MOVQ al+48(FP), DX
	MOVQ mask+56(FP), R9
	VBROADCASTSD factor+64(FP), Z2
	MOVQ di+72(FP), AX
	VMOVUPD (AX), Z0
	VBROADCASTSD slope+88(FP), Z1
	MOVQ gm+96(FP), R11
	MOVQ R10, R13
	VXORPD Z15, Z15, Z15
	VBROADCASTSD attnK<>+88(SB), Z14
	XORQ BX, BX

grck:
	MOVLQSX (SI)(BX*4), AX
	CMPQ AX, R12
	JAE  grbad
	INCQ BX
	CMPQ BX, CX
	JLT  grck

	// ga per edge and dot.
	VXORPD Z3, Z3, Z3
	XORQ BX, BX

gr1:
	MOVLQSX (SI)(BX*4), AX
	IMULQ R10, AX
	ADDQ DI, AX
	VXORPD Z4, Z4, Z4
	XORQ R12, R12

gr1q:
	VMOVUPD (R8)(R12*1), Z5
	VMULPD (AX)(R12*1), Z5, Z5
	VADDPD Z5, Z4, Z4
	ADDQ $64, R12
	CMPQ R12, R13
	JLT  gr1q
	VADDPD Z15, Z4, Z4
	TESTQ R9, R9
	JEQ   gr1nomask
	VPMOVZXBQ (R9), Z11
	VPTESTMQ.BCST attnK<>+136(SB), Z11, K3
	VBLENDMPD Z2, Z15, K3, Z12
	VMULPD Z12, Z4, Z4
	VADDPD Z15, Z4, Z4
	ADDQ $8, R9

gr1nomask:
	VMOVUPD Z4, (R11)
	VMULPD (DX), Z4, Z6
	VADDPD Z6, Z3, Z3
	ADDQ $64, DX
	ADDQ $64, R11
	INCQ BX
	CMPQ BX, CX
	JLT  gr1

	// The scores' gradients and their sum.
	MOVQ al+48(FP), DX
	MOVQ gm+96(FP), R11
	MOVQ src+80(FP), R12
	VXORPD Z7, Z7, Z7
	XORQ BX, BX

gr2:
	MOVLQSX (SI)(BX*4), AX
	SHLQ $6, AX
	VMOVUPD (R11), Z4
	VSUBPD Z3, Z4, Z4
	VMULPD (DX), Z4, Z4
	VADDPD Z15, Z4, Z4
	VADDPD (R12)(AX*1), Z0, Z5
	VCMPPD $0x1e, Z15, Z5, K1
	VBLENDMPD Z14, Z1, K1, Z6
	VMULPD Z6, Z4, Z4
	VADDPD Z15, Z4, Z4
	VMOVUPD Z4, (R11)
	VADDPD Z4, Z7, Z7
	ADDQ $64, DX
	ADDQ $64, R11
	INCQ BX
	CMPQ BX, CX
	JLT  gr2

	VADDPD Z15, Z7, Z7
	MOVQ gdst+104(FP), AX
	VMOVUPD Z7, (AX)
	MOVB $1, ret+112(FP)
	VZEROUPPER
	RET

grbad:
	MOVB $0, ret+112(FP)
	VZEROUPPER
	RET

// func attnGather8AVX512(edges *int, ne int, ge, da *float64, limit int, gs, w *float64) bool
//
// AttnGatherEdges for eight heads (ne ≥ 1): the sum in Z0 from zero, each
// edge's row of ge added in order, then 0 + it into gs; with w ≠ nil each
// edge's row of da copied to w. It returns false, before it has stored
// anything, if an edge is not a row below limit.
TEXT ·attnGather8AVX512(SB), NOSPLIT, $0-57
	MOVQ edges+0(FP), SI
	MOVQ ne+8(FP), CX
	MOVQ ge+16(FP), R8
	MOVQ da+24(FP), R9
	MOVQ limit+32(FP), R12
	MOVQ gs+40(FP), DX
	MOVQ w+48(FP), R11
	XORQ BX, BX

gack:
	MOVQ (SI)(BX*8), AX
	CMPQ AX, R12
	JAE  gabad
	INCQ BX
	CMPQ BX, CX
	JLT  gack

	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	XORQ BX, BX
	TESTQ R11, R11
	JEQ   gasum

gaw:
	MOVQ (SI)(BX*8), AX
	SHLQ $6, AX
	VADDPD (R8)(AX*1), Z0, Z0
	VMOVUPD (R9)(AX*1), Z2
	VMOVUPD Z2, (R11)
	ADDQ $64, R11
	INCQ BX
	CMPQ BX, CX
	JLT  gaw
	JMP  gadone

gasum:
	MOVQ (SI)(BX*8), AX
	SHLQ $6, AX
	VADDPD (R8)(AX*1), Z0, Z0
	INCQ BX
	CMPQ BX, CX
	JLT  gasum

gadone:
	VADDPD Z1, Z0, Z0
	VMOVUPD Z0, (DX)
	MOVB $1, ret+56(FP)
	VZEROUPPER
	RET

gabad:
	MOVB $0, ret+56(FP)
	VZEROUPPER
	RET

// func attnInputGrad8AVX512(acc, gs, gd, as, ad, gh *float64)
//
// AttnInputGradRow for eight heads of eight columns: head m's block of gh
// plus (acc + gs[m]·as) + gd[m]·ad, the products rounded.
TEXT ·attnInputGrad8AVX512(SB), NOSPLIT, $0-48
	MOVQ acc+0(FP), SI
	MOVQ gs+8(FP), R8
	MOVQ gd+16(FP), R9
	MOVQ as+24(FP), R10
	MOVQ ad+32(FP), R11
	MOVQ gh+40(FP), DI
	XORQ AX, AX
	XORQ BX, BX

igm:
	VBROADCASTSD (R8)(BX*8), Z1
	VBROADCASTSD (R9)(BX*8), Z2
	VMULPD (R10)(AX*1), Z1, Z1
	VMULPD (R11)(AX*1), Z2, Z2
	VADDPD (SI)(AX*1), Z1, Z1
	VADDPD Z2, Z1, Z1
	VADDPD (DI)(AX*1), Z1, Z1
	VMOVUPD Z1, (DI)(AX*1)
	ADDQ $64, AX
	INCQ BX
	CMPQ BX, $8
	JLT  igm
	VZEROUPPER
	RET

// func gonumDotsAVX512(a *float64, k int, bt *float64, strideBytes int, c *float64, n int)
//
// GonumDots (k ≥ 1, n ≥ 1): four blocks of eight columns at a time, each
// with its four partial sums (block b's in Z(4b)…Z(4b+3)), then one block,
// the last under a mask of the columns left (K1).
TEXT ·gonumDotsAVX512(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), SI
	MOVQ k+8(FP), R9
	MOVQ bt+16(FP), DI
	MOVQ strideBytes+24(FP), R10
	MOVQ c+32(FP), DX
	MOVQ n+40(FP), CX
	MOVQ R9, R11
	ANDQ $-4, R11 // k rounded down to groups of four
	VXORPD Z31, Z31, Z31

gd4:
	CMPQ CX, $32
	JLT  gd1
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	VXORPD Z4, Z4, Z4
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	VXORPD Z8, Z8, Z8
	VXORPD Z9, Z9, Z9
	VXORPD Z10, Z10, Z10
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12
	VXORPD Z13, Z13, Z13
	VXORPD Z14, Z14, Z14
	VXORPD Z15, Z15, Z15
	MOVQ DI, AX
	XORQ BX, BX

#define GD4TERM(s0, s1, s2, s3) \
	VBROADCASTSD (SI)(BX*8), Z16; \
	VMULPD (AX), Z16, Z17; \
	VMULPD 64(AX), Z16, Z18; \
	VMULPD 128(AX), Z16, Z19; \
	VMULPD 192(AX), Z16, Z20; \
	VADDPD Z17, s0, s0; \
	VADDPD Z18, s1, s1; \
	VADDPD Z19, s2, s2; \
	VADDPD Z20, s3, s3; \
	ADDQ R10, AX; \
	INCQ BX

gd4q:
	CMPQ BX, R11
	JGE  gd4tail
	GD4TERM(Z0, Z4, Z8, Z12)
	GD4TERM(Z1, Z5, Z9, Z13)
	GD4TERM(Z2, Z6, Z10, Z14)
	GD4TERM(Z3, Z7, Z11, Z15)
	JMP  gd4q

gd4tail:
	CMPQ BX, R9
	JGE  gd4end
	GD4TERM(Z0, Z4, Z8, Z12)
	JMP  gd4tail

gd4end:
	VADDPD Z2, Z0, Z0
	VADDPD Z3, Z1, Z1
	VADDPD Z1, Z0, Z0
	VADDPD Z0, Z31, Z0
	VADDPD Z6, Z4, Z4
	VADDPD Z7, Z5, Z5
	VADDPD Z5, Z4, Z4
	VADDPD Z4, Z31, Z4
	VADDPD Z10, Z8, Z8
	VADDPD Z11, Z9, Z9
	VADDPD Z9, Z8, Z8
	VADDPD Z8, Z31, Z8
	VADDPD Z14, Z12, Z12
	VADDPD Z15, Z13, Z13
	VADDPD Z13, Z12, Z12
	VADDPD Z12, Z31, Z12
	VMOVUPD Z0, (DX)
	VMOVUPD Z4, 64(DX)
	VMOVUPD Z8, 128(DX)
	VMOVUPD Z12, 192(DX)
	ADDQ $256, DI
	ADDQ $256, DX
	SUBQ $32, CX
	JMP  gd4

gd1:
	TESTQ CX, CX
	JEQ   gddone
	// K1: min(n, 8) lanes.
	MOVQ $0xff, AX
	CMPQ CX, $8
	JGE  gd1mask
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX

gd1mask:
	KMOVB AX, K1
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	MOVQ DI, AX
	XORQ BX, BX

#define GD1TERM(s) \
	VBROADCASTSD (SI)(BX*8), Z16; \
	VMOVUPD.Z (AX), K1, Z17; \
	VMULPD Z17, Z16, Z17; \
	VADDPD Z17, s, s; \
	ADDQ R10, AX; \
	INCQ BX

gd1q:
	CMPQ BX, R11
	JGE  gd1tail
	GD1TERM(Z0)
	GD1TERM(Z1)
	GD1TERM(Z2)
	GD1TERM(Z3)
	JMP  gd1q

gd1tail:
	CMPQ BX, R9
	JGE  gd1end
	GD1TERM(Z0)
	JMP  gd1tail

gd1end:
	VADDPD Z2, Z0, Z0
	VADDPD Z3, Z1, Z1
	VADDPD Z1, Z0, Z0
	VADDPD Z0, Z31, Z0
	VMOVUPD Z0, K1, (DX)
	ADDQ $64, DI
	ADDQ $64, DX
	SUBQ $8, CX
	JLE  gddone
	JMP  gd1

gddone:
	VZEROUPPER
	RET

// Constants of the non-zero kernel: the int32 lane numbers, and 8.
DATA nzK<>+0(SB)/4, $0
DATA nzK<>+4(SB)/4, $1
DATA nzK<>+8(SB)/4, $2
DATA nzK<>+12(SB)/4, $3
DATA nzK<>+16(SB)/4, $4
DATA nzK<>+20(SB)/4, $5
DATA nzK<>+24(SB)/4, $6
DATA nzK<>+28(SB)/4, $7
DATA nzK<>+32(SB)/4, $8
GLOBL nzK<>(SB), RODATA|NOPTR, $36

// func compressNonzerosAVX512(x *float64, n int, idx *int32, val *float64) int
//
// CompressNonzeros: eight entries at a time (the last ones under a mask),
// the lanes x ≠ 0 (a NaN included) compressed to the low lanes of a
// register and stored whole at the count so far, with their positions;
// it returns the count. idx and val take eight entries past it.
TEXT ·compressNonzerosAVX512(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ idx+16(FP), DI
	MOVQ val+24(FP), DX
	XORQ R8, R8
	VMOVDQU nzK<>+0(SB), Y1
	VPBROADCASTD nzK<>+32(SB), Y2
	VXORPD Z0, Z0, Z0

cnz8:
	CMPQ CX, $8
	JLT  cnztail
	VMOVUPD (SI), Z3
	VCMPPD $4, Z0, Z3, K1
	VCOMPRESSPD Z3, K1, Z4
	VPCOMPRESSD Z1, K1, Z5
	VMOVUPD Z4, (DX)(R8*8)
	VMOVDQU Y5, (DI)(R8*4)
	KMOVB K1, AX
	POPCNTL AX, AX
	ADDQ AX, R8
	VPADDD Y2, Y1, Y1
	ADDQ $64, SI
	SUBQ $8, CX
	JMP  cnz8

cnztail:
	TESTQ CX, CX
	JEQ   cnzdone
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVB AX, K2
	VMOVUPD.Z (SI), K2, Z3
	VCMPPD $4, Z0, Z3, K2, K1
	VCOMPRESSPD Z3, K1, Z4
	VPCOMPRESSD Z1, K1, Z5
	VMOVUPD Z4, (DX)(R8*8)
	VMOVDQU Y5, (DI)(R8*4)
	KMOVB K1, AX
	POPCNTL AX, AX
	ADDQ AX, R8

cnzdone:
	MOVQ R8, ret+32(FP)
	VZEROUPPER
	RET
