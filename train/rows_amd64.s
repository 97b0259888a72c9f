//go:build goexperiment.simd && amd64

#include "textflag.h"

// func dots4AVX512(x, y *float64, stride, nb int, acc *[32]float64)
//
// acc[8c:8c+8] = Σ_b x[8b:8b+8]·y[c·stride+8b : c·stride+8b+8] for c < 4 and
// b < nb, one fused multiply-add per block in block order, from zero.
TEXT ·dots4AVX512(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ stride+16(FP), R8
	SHLQ $3, R8
	MOVQ nb+24(FP), CX
	MOVQ acc+32(FP), DX
	LEAQ (DI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	XORQ AX, AX
	TESTQ CX, CX
	JEQ done4

loop4:
	VMOVUPD (SI)(AX*1), Z4
	VFMADD231PD (DI)(AX*1), Z4, Z0
	VFMADD231PD (R9)(AX*1), Z4, Z1
	VFMADD231PD (R10)(AX*1), Z4, Z2
	VFMADD231PD (R11)(AX*1), Z4, Z3
	ADDQ $64, AX
	DECQ CX
	JNE  loop4

done4:
	VMOVUPD Z0, (DX)
	VMOVUPD Z1, 64(DX)
	VMOVUPD Z2, 128(DX)
	VMOVUPD Z3, 192(DX)
	VZEROUPPER
	RET

// func dots1AVX512(x, y *float64, nb int, acc *[8]float64)
//
// acc = Σ_b x[8b:8b+8]·y[8b:8b+8], one fused multiply-add per block in
// block order, from zero.
TEXT ·dots1AVX512(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ nb+16(FP), CX
	MOVQ acc+24(FP), DX
	VXORPD Z0, Z0, Z0
	XORQ AX, AX
	TESTQ CX, CX
	JEQ done1

loop1:
	VMOVUPD (SI)(AX*1), Z4
	VFMADD231PD (DI)(AX*1), Z4, Z0
	ADDQ $64, AX
	DECQ CX
	JNE  loop1

done1:
	VMOVUPD Z0, (DX)
	VZEROUPPER
	RET

// func axpyRowsAVX512(out *float64, strideBytes int, gv *float64, nc int, x *float64, nb int)
//
// For each block b < nb and class k < nc (rows of out strideBytes apart):
// out[k][b] = gv[k]·x[b] + out[k][b] (fused). nc ≥ 1.
TEXT ·axpyRowsAVX512(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), SI
	MOVQ strideBytes+8(FP), R8
	MOVQ gv+16(FP), R9
	MOVQ nc+24(FP), R10
	MOVQ x+32(FP), R11
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

// func axpy4RowsAVX512(out *float64, outStrideBytes int, gp *float64, nc int, x *float64, xStrideBytes int, nb int)
//
// Four rows at a time: for each class k < nc and block b < nb (rows of out
// outStrideBytes apart, of x xStrideBytes apart): out[k][b] = gp[4k+3]·x3[b]
// + (gp[4k+2]·x2[b] + (gp[4k+1]·x1[b] + (gp[4k]·x0[b] + out[k][b]))), each
// step fused: the same sums as four calls of axpyRowsAVX512 in row order,
// with a quarter of the loads and stores of out. nc ≥ 1.
TEXT ·axpy4RowsAVX512(SB), NOSPLIT, $0-56
	MOVQ out+0(FP), SI
	MOVQ outStrideBytes+8(FP), R8
	MOVQ gp+16(FP), R9
	MOVQ nc+24(FP), R11
	MOVQ x+32(FP), R12
	MOVQ xStrideBytes+40(FP), R13
	MOVQ nb+48(FP), BX
	TESTQ BX, BX
	JEQ   ax4done
	LEAQ (R12)(R13*1), R10
	LEAQ (R12)(R13*2), DX
	LEAQ (R10)(R13*2), R13

ax4cls:
	VBROADCASTSD (R9), Z0
	VBROADCASTSD 8(R9), Z1
	VBROADCASTSD 16(R9), Z2
	VBROADCASTSD 24(R9), Z3
	MOVQ SI, DI
	XORQ AX, AX
	MOVQ BX, CX

ax4blk:
	VMOVUPD (DI), Z4
	VFMADD231PD (R12)(AX*1), Z0, Z4
	VFMADD231PD (R10)(AX*1), Z1, Z4
	VFMADD231PD (DX)(AX*1), Z2, Z4
	VFMADD231PD (R13)(AX*1), Z3, Z4
	VMOVUPD Z4, (DI)
	ADDQ $64, DI
	ADDQ $64, AX
	DECQ CX
	JNE  ax4blk
	ADDQ $32, R9
	ADDQ R8, SI
	DECQ R11
	JNE  ax4cls

ax4done:
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
