//go:build goexperiment.simd && amd64

#include "textflag.h"

// AVX-512 loops of the HyLa kernels (features_simd.go). Every function works
// on blocks of eight float64 (64 bytes) and computes exactly what the Go
// code documenting it says, with fused multiply-adds in the order given, so
// the results depend on the inputs only.

// func hylaDistAVX512(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int)
//
// For each block b < nb: q[8b:8b+8] = Σ_k (z_k − Ωᵀ[k][8b:8b+8])², one
// t = z_k − ω then acc = t·t + acc (fused) per k in order, from zero. Four
// blocks at a time share each broadcast of z_k.
TEXT ·hylaDistAVX512(SB), NOSPLIT, $0-48
	MOVQ z+0(FP), SI
	MOVQ d0+8(FP), R8
	MOVQ omegaT+16(FP), DI
	MOVQ strideBytes+24(FP), R9
	MOVQ q+32(FP), DX
	MOVQ nb+40(FP), CX

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
// For each block b < nb and class k < nc (rows of part strideBytes apart):
// part[k][b] = gy[k]·phi[b] + part[k][b] (fused). nc ≥ 1.
TEXT ·hylaAxpyAVX512(SB), NOSPLIT, $0-48
	MOVQ part+0(FP), SI
	MOVQ strideBytes+8(FP), R8
	MOVQ gy+16(FP), R9
	MOVQ nc+24(FP), R10
	MOVQ phi+32(FP), R11
	MOVQ nb+40(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JEQ   axdone

axblk:
	VMOVUPD (R11)(AX*1), Z8
	LEAQ (SI)(AX*1), DI
	XORQ BX, BX

axcls:
	VBROADCASTSD (R9)(BX*8), Z3
	VMOVUPD (DI), Z4
	VFMADD231PD Z8, Z3, Z4
	VMOVUPD Z4, (DI)
	ADDQ R8, DI
	INCQ BX
	CMPQ BX, R10
	JLT  axcls
	ADDQ $64, AX
	DECQ CX
	JNE  axblk

axdone:
	VZEROUPPER
	RET
