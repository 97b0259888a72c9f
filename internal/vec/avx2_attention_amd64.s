#include "textflag.h"

// The attention kernels (attention.go) on the AVX2 path: eight heads, an
// edge's or a node's block of eight values, as two Y registers (heads 0–3
// and 4–7). Every lane goes through the operations of the AVX-512 kernel
// in avx512_amd64.s, with the same operands in the same order (x86 returns
// the first operand's NaN when both are NaNs), and so of the portable code.
// Where the AVX-512 kernels use a mask register, these use a compare
// result or a mask byte shifted into the sign bit with VBLENDVPD: the same
// value is selected. The constants are attnY, four copies of each (memory
// operands of 32 bytes).

DATA attnY<>+0(SB)/8, $0x3ff71547652b82fe // log2 e
DATA attnY<>+8(SB)/8, $0x3ff71547652b82fe
DATA attnY<>+16(SB)/8, $0x3ff71547652b82fe
DATA attnY<>+24(SB)/8, $0x3ff71547652b82fe
DATA attnY<>+32(SB)/8, $0x3fe62e42fefa3000 // ln 2, upper part
DATA attnY<>+40(SB)/8, $0x3fe62e42fefa3000
DATA attnY<>+48(SB)/8, $0x3fe62e42fefa3000
DATA attnY<>+56(SB)/8, $0x3fe62e42fefa3000
DATA attnY<>+64(SB)/8, $0x3d53de6af278ece6 // ln 2, lower part
DATA attnY<>+72(SB)/8, $0x3d53de6af278ece6
DATA attnY<>+80(SB)/8, $0x3d53de6af278ece6
DATA attnY<>+88(SB)/8, $0x3d53de6af278ece6
DATA attnY<>+96(SB)/8, $0x3fb0000000000000 // 1/16
DATA attnY<>+104(SB)/8, $0x3fb0000000000000
DATA attnY<>+112(SB)/8, $0x3fb0000000000000
DATA attnY<>+120(SB)/8, $0x3fb0000000000000
DATA attnY<>+128(SB)/8, $0x3efa01a01a01a01a // 1/8!
DATA attnY<>+136(SB)/8, $0x3efa01a01a01a01a
DATA attnY<>+144(SB)/8, $0x3efa01a01a01a01a
DATA attnY<>+152(SB)/8, $0x3efa01a01a01a01a
DATA attnY<>+160(SB)/8, $0x3f2a01a01a01a01a // 1/7!
DATA attnY<>+168(SB)/8, $0x3f2a01a01a01a01a
DATA attnY<>+176(SB)/8, $0x3f2a01a01a01a01a
DATA attnY<>+184(SB)/8, $0x3f2a01a01a01a01a
DATA attnY<>+192(SB)/8, $0x3f56c16c16c16c17 // 1/6!
DATA attnY<>+200(SB)/8, $0x3f56c16c16c16c17
DATA attnY<>+208(SB)/8, $0x3f56c16c16c16c17
DATA attnY<>+216(SB)/8, $0x3f56c16c16c16c17
DATA attnY<>+224(SB)/8, $0x3f81111111111111 // 1/5!
DATA attnY<>+232(SB)/8, $0x3f81111111111111
DATA attnY<>+240(SB)/8, $0x3f81111111111111
DATA attnY<>+248(SB)/8, $0x3f81111111111111
DATA attnY<>+256(SB)/8, $0x3fa5555555555555 // 1/4!
DATA attnY<>+264(SB)/8, $0x3fa5555555555555
DATA attnY<>+272(SB)/8, $0x3fa5555555555555
DATA attnY<>+280(SB)/8, $0x3fa5555555555555
DATA attnY<>+288(SB)/8, $0x3fc5555555555555 // 1/3!
DATA attnY<>+296(SB)/8, $0x3fc5555555555555
DATA attnY<>+304(SB)/8, $0x3fc5555555555555
DATA attnY<>+312(SB)/8, $0x3fc5555555555555
DATA attnY<>+320(SB)/8, $0x3fe0000000000000 // 1/2
DATA attnY<>+328(SB)/8, $0x3fe0000000000000
DATA attnY<>+336(SB)/8, $0x3fe0000000000000
DATA attnY<>+344(SB)/8, $0x3fe0000000000000
DATA attnY<>+352(SB)/8, $0x3ff0000000000000 // 1
DATA attnY<>+360(SB)/8, $0x3ff0000000000000
DATA attnY<>+368(SB)/8, $0x3ff0000000000000
DATA attnY<>+376(SB)/8, $0x3ff0000000000000
DATA attnY<>+384(SB)/8, $0x4000000000000000 // 2
DATA attnY<>+392(SB)/8, $0x4000000000000000
DATA attnY<>+400(SB)/8, $0x4000000000000000
DATA attnY<>+408(SB)/8, $0x4000000000000000
DATA attnY<>+416(SB)/8, $0x00000000000003ff // 1023 (integer)
DATA attnY<>+424(SB)/8, $0x00000000000003ff
DATA attnY<>+432(SB)/8, $0x00000000000003ff
DATA attnY<>+440(SB)/8, $0x00000000000003ff
DATA attnY<>+448(SB)/8, $0xc086200000000000 // expLo −708
DATA attnY<>+456(SB)/8, $0xc086200000000000
DATA attnY<>+464(SB)/8, $0xc086200000000000
DATA attnY<>+472(SB)/8, $0xc086200000000000
DATA attnY<>+480(SB)/8, $0x4086200000000000 // expHi 708
DATA attnY<>+488(SB)/8, $0x4086200000000000
DATA attnY<>+496(SB)/8, $0x4086200000000000
DATA attnY<>+504(SB)/8, $0x4086200000000000
DATA attnY<>+512(SB)/8, $0xfff0000000000000 // −Inf
DATA attnY<>+520(SB)/8, $0xfff0000000000000
DATA attnY<>+528(SB)/8, $0xfff0000000000000
DATA attnY<>+536(SB)/8, $0xfff0000000000000
DATA attnY<>+544(SB)/8, $0 // 0, 1, 2, 3 (integers): the lanes' numbers
DATA attnY<>+552(SB)/8, $1
DATA attnY<>+560(SB)/8, $2
DATA attnY<>+568(SB)/8, $3
GLOBL attnY<>(SB), RODATA|NOPTR, $576

// EXP4X2 is Exp (exp.go) on the four lanes of each of xa and xb, for
// arguments in [expLo, expHi], as the AVX-512 kernels' EXP8: k =
// round(x·log2 e) (ky, as int32), the reduction by k·ln 2 in two fused
// steps, the polynomial p, four squarings (the last fused with the 1), and
// the product by 2^k. The two chains go step by step side by side, so that
// an edge's two halves overlap. t, p and s are scratch; ky is the X
// register of another scratch.
#define EXP4X2(xa, xb, ta, tb, kya, kyb, pa, pb, sa, sb) \
	VMULPD attnY<>+0(SB), xa, ta; \
	VMULPD attnY<>+0(SB), xb, tb; \
	VCVTPD2DQY ta, kya; \
	VCVTPD2DQY tb, kyb; \
	VCVTDQ2PD kya, ta; \
	VCVTDQ2PD kyb, tb; \
	VFNMADD231PD attnY<>+32(SB), ta, xa; \
	VFNMADD231PD attnY<>+32(SB), tb, xb; \
	VFNMADD231PD attnY<>+64(SB), ta, xa; \
	VFNMADD231PD attnY<>+64(SB), tb, xb; \
	VMULPD attnY<>+96(SB), xa, xa; \
	VMULPD attnY<>+96(SB), xb, xb; \
	VMOVUPD attnY<>+128(SB), pa; \
	VMOVUPD attnY<>+128(SB), pb; \
	VFMADD213PD attnY<>+160(SB), xa, pa; \
	VFMADD213PD attnY<>+160(SB), xb, pb; \
	VFMADD213PD attnY<>+192(SB), xa, pa; \
	VFMADD213PD attnY<>+192(SB), xb, pb; \
	VFMADD213PD attnY<>+224(SB), xa, pa; \
	VFMADD213PD attnY<>+224(SB), xb, pb; \
	VFMADD213PD attnY<>+256(SB), xa, pa; \
	VFMADD213PD attnY<>+256(SB), xb, pb; \
	VFMADD213PD attnY<>+288(SB), xa, pa; \
	VFMADD213PD attnY<>+288(SB), xb, pb; \
	VFMADD213PD attnY<>+320(SB), xa, pa; \
	VFMADD213PD attnY<>+320(SB), xb, pb; \
	VFMADD213PD attnY<>+352(SB), xa, pa; \
	VFMADD213PD attnY<>+352(SB), xb, pb; \
	VMULPD pa, xa, xa; \
	VMULPD pb, xb, xb; \
	VADDPD attnY<>+384(SB), xa, pa; \
	VADDPD attnY<>+384(SB), xb, pb; \
	VMULPD pa, xa, xa; \
	VMULPD pb, xb, xb; \
	VADDPD attnY<>+384(SB), xa, pa; \
	VADDPD attnY<>+384(SB), xb, pb; \
	VMULPD pa, xa, xa; \
	VMULPD pb, xb, xb; \
	VADDPD attnY<>+384(SB), xa, pa; \
	VADDPD attnY<>+384(SB), xb, pb; \
	VMULPD pa, xa, xa; \
	VMULPD pb, xb, xb; \
	VADDPD attnY<>+384(SB), xa, pa; \
	VADDPD attnY<>+384(SB), xb, pb; \
	VFMADD213PD attnY<>+352(SB), pa, xa; \
	VFMADD213PD attnY<>+352(SB), pb, xb; \
	VPMOVSXDQ kya, sa; \
	VPMOVSXDQ kyb, sb; \
	VPADDQ attnY<>+416(SB), sa, sa; \
	VPADDQ attnY<>+416(SB), sb, sb; \
	VPSLLQ $52, sa, sa; \
	VPSLLQ $52, sb, sb; \
	VMULPD sa, xa, xa; \
	VMULPD sb, xb, xb

// func attnSoftmax8AVX2(idx *int32, deg int, di, src *float64, limit int, slope float64, al *float64, mask *uint8, factor float64, da *float64) int
//
// attnSoftmax8AVX512 on two halves (deg ≥ 1): the scores and their running
// maximum (Y4, Y5) in a first pass over the edges, Exp of each score less
// the maximum and their sum (Y12, Y13) in a second, the quotients (and the
// dropped-out coefficients) in a third. It returns 2, before it has stored
// anything, if a source is not a row below limit; 1 if an argument of Exp
// was outside [expLo, expHi] or a NaN (Y14 collects the lanes in range;
// the caller recomputes the row); 0 when done.
TEXT ·attnSoftmax8AVX2(SB), NOSPLIT, $0-88
	MOVQ idx+0(FP), SI
	MOVQ deg+8(FP), CX
	MOVQ di+16(FP), R8
	MOVQ src+24(FP), DI
	MOVQ limit+32(FP), R12
	MOVQ al+48(FP), DX
	MOVQ mask+56(FP), R9
	MOVQ da+72(FP), R10

	// The sources are checked before anything is stored.
	XORQ BX, BX

ysck:
	MOVLQSX (SI)(BX*4), AX
	CMPQ AX, R12
	JAE  ysbad
	INCQ BX
	CMPQ BX, CX
	JLT  ysck

	// Scores, LeakyReLU (e·1 or e·slope), running maximum.
	VMOVUPD (R8), Y0
	VMOVUPD 32(R8), Y1
	VBROADCASTSD slope+40(FP), Y2
	VBROADCASTSD attnY<>+352(SB), Y3
	VMOVUPD attnY<>+512(SB), Y4
	VMOVUPD attnY<>+512(SB), Y5
	VXORPD Y15, Y15, Y15
	XORQ BX, BX
	MOVQ DX, R11

ys1:
	MOVLQSX (SI)(BX*4), AX
	SHLQ $6, AX
	VADDPD (DI)(AX*1), Y0, Y6
	VADDPD 32(DI)(AX*1), Y1, Y7
	VCMPPD $0x1e, Y15, Y6, Y8
	VCMPPD $0x1e, Y15, Y7, Y9
	VBLENDVPD Y8, Y3, Y2, Y8
	VBLENDVPD Y9, Y3, Y2, Y9
	VMULPD Y8, Y6, Y6
	VMULPD Y9, Y7, Y7
	VMOVUPD Y6, (R11)
	VMOVUPD Y7, 32(R11)
	VMAXPD Y4, Y6, Y4
	VMAXPD Y5, Y7, Y5
	ADDQ $64, R11
	INCQ BX
	CMPQ BX, CX
	JLT  ys1

	// Exp(e − max) and the sum.
	VPCMPEQQ Y14, Y14, Y14
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	MOVQ DX, R11
	MOVQ CX, BX

ys2:
	VMOVUPD (R11), Y6
	VMOVUPD 32(R11), Y7
	VSUBPD Y4, Y6, Y6
	VSUBPD Y5, Y7, Y7
	VCMPPD $0x1d, attnY<>+448(SB), Y6, Y8
	VCMPPD $0x1d, attnY<>+448(SB), Y7, Y9
	VCMPPD $0x12, attnY<>+480(SB), Y6, Y10
	VCMPPD $0x12, attnY<>+480(SB), Y7, Y11
	VANDPD Y8, Y14, Y14
	VANDPD Y9, Y14, Y14
	VANDPD Y10, Y14, Y14
	VANDPD Y11, Y14, Y14
	EXP4X2(Y6, Y7, Y8, Y9, X10, X11, Y0, Y1, Y2, Y3)
	VMOVUPD Y6, (R11)
	VMOVUPD Y7, 32(R11)
	VADDPD Y6, Y12, Y12
	VADDPD Y7, Y13, Y13
	ADDQ $64, R11
	DECQ BX
	JNE  ys2
	VMOVMSKPD Y14, AX
	CMPQ AX, $15
	JNE  ysrange

	// The quotients, and with a mask the dropped-out coefficients
	// al·(factor or 0): the mask's bytes, widened, shifted into the sign
	// bit, select factor or +0.
	MOVQ DX, R11
	MOVQ CX, BX
	TESTQ R9, R9
	JEQ   ys3
	VBROADCASTSD factor+64(FP), Y2

ys3m:
	VMOVUPD (R11), Y6
	VMOVUPD 32(R11), Y7
	VDIVPD Y12, Y6, Y6
	VDIVPD Y13, Y7, Y7
	VMOVUPD Y6, (R11)
	VMOVUPD Y7, 32(R11)
	VPMOVZXBQ (R9), Y8
	VPMOVZXBQ 4(R9), Y9
	VPSLLQ $63, Y8, Y8
	VPSLLQ $63, Y9, Y9
	VBLENDVPD Y8, Y2, Y15, Y8
	VBLENDVPD Y9, Y2, Y15, Y9
	VMULPD Y8, Y6, Y8
	VMULPD Y9, Y7, Y9
	VMOVUPD Y8, (R10)
	VMOVUPD Y9, 32(R10)
	ADDQ $64, R11
	ADDQ $8, R9
	ADDQ $64, R10
	DECQ BX
	JNE  ys3m
	JMP  ysdone

ys3:
	VMOVUPD (R11), Y6
	VMOVUPD 32(R11), Y7
	VDIVPD Y12, Y6, Y6
	VDIVPD Y13, Y7, Y7
	VMOVUPD Y6, (R11)
	VMOVUPD Y7, 32(R11)
	ADDQ $64, R11
	DECQ BX
	JNE  ys3

ysdone:
	MOVQ $0, ret+80(FP)
	VZEROUPPER
	RET

ysrange:
	MOVQ $1, ret+80(FP)
	VZEROUPPER
	RET

ysbad:
	MOVQ $2, ret+80(FP)
	RET

// AGG8HEAD adds head m's products for one edge to its sums lo, hi: the
// edge's coefficient at off(R11) broadcast, times the source's eight
// columns at AX (each product rounded), then AX advances by gcol (R9).
#define AGG8HEAD(off, lo, hi) \
	VBROADCASTSD off(R11), Y8; \
	VMULPD (AX), Y8, Y9; \
	VMULPD 32(AX), Y8, Y10; \
	VADDPD Y9, lo, lo; \
	VADDPD Y10, hi, hi; \
	ADDQ R9, AX

// func attnAggregate8x8AVX2(idx *int32, deg int, w, src *float64, strideBytes, limit int, acc *float64, gcolBytes int) bool
//
// attnAggregate8AVX512 for eight heads of eight columns (deg ≥ 1), in two
// passes over the edges, heads 0–3 and then 4–7: head m's sums in Y(2m'),
// Y(2m'+1) (m' = m mod 4), loaded from acc[8m:]; for each edge in order,
// w[p·8+m] broadcast times the source row's columns at m·gcol, rounded,
// then added. It returns false, before it has stored anything, if a source
// is not a row below limit.
TEXT ·attnAggregate8x8AVX2(SB), NOSPLIT, $0-65
	MOVQ idx+0(FP), SI
	MOVQ deg+8(FP), CX
	MOVQ w+16(FP), R8
	MOVQ src+24(FP), DI
	MOVQ strideBytes+32(FP), R10
	MOVQ limit+40(FP), R12
	MOVQ acc+48(FP), DX
	MOVQ gcolBytes+56(FP), R9
	XORQ BX, BX

yagck:
	MOVLQSX (SI)(BX*4), AX
	CMPQ AX, R12
	JAE  yagbad
	INCQ BX
	CMPQ BX, CX
	JLT  yagck

	// R12: 4·gcol, from the first pass's heads to the second's.
	MOVQ R9, R12
	SHLQ $2, R12
	MOVQ $2, R13

yagpass:
	VMOVUPD (DX), Y0
	VMOVUPD 32(DX), Y1
	VMOVUPD 64(DX), Y2
	VMOVUPD 96(DX), Y3
	VMOVUPD 128(DX), Y4
	VMOVUPD 160(DX), Y5
	VMOVUPD 192(DX), Y6
	VMOVUPD 224(DX), Y7
	MOVQ R8, R11
	XORQ BX, BX

yagq:
	MOVLQSX (SI)(BX*4), AX
	IMULQ R10, AX
	ADDQ DI, AX
	AGG8HEAD(0, Y0, Y1)
	AGG8HEAD(8, Y2, Y3)
	AGG8HEAD(16, Y4, Y5)
	AGG8HEAD(24, Y6, Y7)
	ADDQ $64, R11
	INCQ BX
	CMPQ BX, CX
	JLT  yagq

	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VMOVUPD Y4, 128(DX)
	VMOVUPD Y5, 160(DX)
	VMOVUPD Y6, 192(DX)
	VMOVUPD Y7, 224(DX)
	ADDQ $256, DX
	ADDQ $32, R8
	ADDQ R12, DI
	DECQ R13
	JNE  yagpass
	MOVB $1, ret+64(FP)
	VZEROUPPER
	RET

yagbad:
	MOVB $0, ret+64(FP)
	RET

// AGG4HEAD adds head m's products for one edge to its sum s: the edge's
// coefficient at off(R11) broadcast, times the source's c columns at AX
// (loaded under the mask Y15, the others 0), rounded; then AX advances by
// gcol (R9).
#define AGG4HEAD(off, s) \
	VBROADCASTSD off(R11), Y8; \
	VMASKMOVPD (AX), Y15, Y9; \
	VMULPD Y9, Y8, Y9; \
	VADDPD Y9, s, s; \
	ADDQ R9, AX

// func attnAggregate8x4AVX2(idx *int32, deg int, w, src *float64, strideBytes, limit int, acc *float64, c, gcolBytes int) bool
//
// attnAggregate8AVX512 for eight heads of c ≤ 4 columns (deg ≥ 1): head
// m's sums in Y(m), lanes c–3 unused. The sources' columns are loaded under
// the mask Y15 of c lanes, which reads nothing past them; so are the sums
// from acc[m·c:]. The sums are stored in head order, heads 0–6 whole when
// c ≥ 2, since what a head's store writes past its c columns, the next
// heads' stores overwrite (and it stays within acc), and the last one
// under the mask. It returns false, before it has stored anything, if a
// source is not a row below limit.
TEXT ·attnAggregate8x4AVX2(SB), NOSPLIT, $0-73
	MOVQ idx+0(FP), SI
	MOVQ deg+8(FP), CX
	MOVQ w+16(FP), R11
	MOVQ src+24(FP), DI
	MOVQ strideBytes+32(FP), R10
	MOVQ limit+40(FP), R12
	MOVQ acc+48(FP), DX
	MOVQ c+56(FP), R8
	MOVQ gcolBytes+64(FP), R9
	XORQ BX, BX

yaqck:
	MOVLQSX (SI)(BX*4), AX
	CMPQ AX, R12
	JAE  yaqbad
	INCQ BX
	CMPQ BX, CX
	JLT  yaqck

	// Y15: the lanes below c; R12: 8c bytes, the stride of acc's heads.
	MOVQ R8, X15
	VPBROADCASTQ X15, Y15
	VPCMPGTQ attnY<>+544(SB), Y15, Y15
	MOVQ R8, R12
	SHLQ $3, R12
	MOVQ DX, AX
	VMASKMOVPD (AX), Y15, Y0
	ADDQ R12, AX
	VMASKMOVPD (AX), Y15, Y1
	ADDQ R12, AX
	VMASKMOVPD (AX), Y15, Y2
	ADDQ R12, AX
	VMASKMOVPD (AX), Y15, Y3
	ADDQ R12, AX
	VMASKMOVPD (AX), Y15, Y4
	ADDQ R12, AX
	VMASKMOVPD (AX), Y15, Y5
	ADDQ R12, AX
	VMASKMOVPD (AX), Y15, Y6
	ADDQ R12, AX
	VMASKMOVPD (AX), Y15, Y7
	XORQ BX, BX

yaqq:
	MOVLQSX (SI)(BX*4), AX
	IMULQ R10, AX
	ADDQ DI, AX
	AGG4HEAD(0, Y0)
	AGG4HEAD(8, Y1)
	AGG4HEAD(16, Y2)
	AGG4HEAD(24, Y3)
	AGG4HEAD(32, Y4)
	AGG4HEAD(40, Y5)
	AGG4HEAD(48, Y6)
	AGG4HEAD(56, Y7)
	ADDQ $64, R11
	INCQ BX
	CMPQ BX, CX
	JLT  yaqq

	MOVQ DX, AX
	CMPQ R8, $2
	JLT  yaqmasked
	VMOVUPD Y0, (AX)
	ADDQ R12, AX
	VMOVUPD Y1, (AX)
	ADDQ R12, AX
	VMOVUPD Y2, (AX)
	ADDQ R12, AX
	VMOVUPD Y3, (AX)
	ADDQ R12, AX
	VMOVUPD Y4, (AX)
	ADDQ R12, AX
	VMOVUPD Y5, (AX)
	ADDQ R12, AX
	VMOVUPD Y6, (AX)
	ADDQ R12, AX
	VMASKMOVPD Y7, Y15, (AX)
	MOVB $1, ret+72(FP)
	VZEROUPPER
	RET

yaqmasked:
	VMASKMOVPD Y0, Y15, (AX)
	ADDQ R12, AX
	VMASKMOVPD Y1, Y15, (AX)
	ADDQ R12, AX
	VMASKMOVPD Y2, Y15, (AX)
	ADDQ R12, AX
	VMASKMOVPD Y3, Y15, (AX)
	ADDQ R12, AX
	VMASKMOVPD Y4, Y15, (AX)
	ADDQ R12, AX
	VMASKMOVPD Y5, Y15, (AX)
	ADDQ R12, AX
	VMASKMOVPD Y6, Y15, (AX)
	ADDQ R12, AX
	VMASKMOVPD Y7, Y15, (AX)
	MOVB $1, ret+72(FP)
	VZEROUPPER
	RET

yaqbad:
	MOVB $0, ret+72(FP)
	RET

// func attnGrad8AVX2(idx *int32, deg int, gT, hT *float64, rowBytes, limit int, al *float64, mask *uint8, factor float64, di, src *float64, slope float64, gm, gdst *float64) bool
//
// attnGrad8AVX512 on two halves (deg ≥ 1): gT is the row's gradient as c
// blocks (column q of every head), hT the sources' features as rows of c
// blocks (rowBytes = 64c). The first pass computes each edge's ga (the
// dot product over q, from zero, then 0 + ·, the mask's factor) into gm
// and dot = Σ al·ga (Y3, Y4); the second the scores' gradients and their
// sum (Y12, Y13). It returns false, before it has stored anything, if a
// source is not a row below limit.
TEXT ·attnGrad8AVX2(SB), NOSPLIT, $0-113
	MOVQ idx+0(FP), SI
	MOVQ deg+8(FP), CX
	MOVQ gT+16(FP), R8
	MOVQ hT+24(FP), DI
	MOVQ rowBytes+32(FP), R10
	MOVQ limit+40(FP), R12
	MOVQ al+48(FP), DX
	MOVQ mask+56(FP), R9
	MOVQ gm+96(FP), R11
	XORQ BX, BX

ygck:
	MOVLQSX (SI)(BX*4), AX
	CMPQ AX, R12
	JAE  ygbad
	INCQ BX
	CMPQ BX, CX
	JLT  ygck

	// ga per edge and dot.
	VBROADCASTSD factor+64(FP), Y2
	VXORPD Y15, Y15, Y15
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	XORQ BX, BX

yg1:
	MOVLQSX (SI)(BX*4), AX
	IMULQ R10, AX
	ADDQ DI, AX
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	XORQ R12, R12

yg1q:
	VMOVUPD (R8)(R12*1), Y7
	VMOVUPD 32(R8)(R12*1), Y8
	VMULPD (AX)(R12*1), Y7, Y7
	VMULPD 32(AX)(R12*1), Y8, Y8
	VADDPD Y7, Y5, Y5
	VADDPD Y8, Y6, Y6
	ADDQ $64, R12
	CMPQ R12, R10
	JLT  yg1q
	VADDPD Y15, Y5, Y5
	VADDPD Y15, Y6, Y6
	TESTQ R9, R9
	JEQ   yg1nomask
	VPMOVZXBQ (R9), Y9
	VPMOVZXBQ 4(R9), Y10
	VPSLLQ $63, Y9, Y9
	VPSLLQ $63, Y10, Y10
	VBLENDVPD Y9, Y2, Y15, Y9
	VBLENDVPD Y10, Y2, Y15, Y10
	VMULPD Y9, Y5, Y5
	VMULPD Y10, Y6, Y6
	VADDPD Y15, Y5, Y5
	VADDPD Y15, Y6, Y6
	ADDQ $8, R9

yg1nomask:
	VMOVUPD Y5, (R11)
	VMOVUPD Y6, 32(R11)
	VMULPD (DX), Y5, Y7
	VMULPD 32(DX), Y6, Y8
	VADDPD Y7, Y3, Y3
	VADDPD Y8, Y4, Y4
	ADDQ $64, DX
	ADDQ $64, R11
	INCQ BX
	CMPQ BX, CX
	JLT  yg1

	// The scores' gradients and their sum.
	MOVQ al+48(FP), DX
	MOVQ gm+96(FP), R11
	MOVQ src+80(FP), R12
	MOVQ di+72(FP), AX
	VMOVUPD (AX), Y0
	VMOVUPD 32(AX), Y1
	VBROADCASTSD slope+88(FP), Y2
	VBROADCASTSD attnY<>+352(SB), Y14
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	XORQ BX, BX

yg2:
	MOVLQSX (SI)(BX*4), AX
	SHLQ $6, AX
	VMOVUPD (R11), Y5
	VMOVUPD 32(R11), Y6
	VSUBPD Y3, Y5, Y5
	VSUBPD Y4, Y6, Y6
	VMULPD (DX), Y5, Y5
	VMULPD 32(DX), Y6, Y6
	VADDPD Y15, Y5, Y5
	VADDPD Y15, Y6, Y6
	VADDPD (R12)(AX*1), Y0, Y7
	VADDPD 32(R12)(AX*1), Y1, Y8
	VCMPPD $0x1e, Y15, Y7, Y7
	VCMPPD $0x1e, Y15, Y8, Y8
	VBLENDVPD Y7, Y14, Y2, Y7
	VBLENDVPD Y8, Y14, Y2, Y8
	VMULPD Y7, Y5, Y5
	VMULPD Y8, Y6, Y6
	VADDPD Y15, Y5, Y5
	VADDPD Y15, Y6, Y6
	VMOVUPD Y5, (R11)
	VMOVUPD Y6, 32(R11)
	VADDPD Y5, Y12, Y12
	VADDPD Y6, Y13, Y13
	ADDQ $64, DX
	ADDQ $64, R11
	INCQ BX
	CMPQ BX, CX
	JLT  yg2

	VADDPD Y15, Y12, Y12
	VADDPD Y15, Y13, Y13
	MOVQ gdst+104(FP), AX
	VMOVUPD Y12, (AX)
	VMOVUPD Y13, 32(AX)
	MOVB $1, ret+112(FP)
	VZEROUPPER
	RET

ygbad:
	MOVB $0, ret+112(FP)
	RET

// func attnGather8AVX2(edges *int, ne int, ge, da *float64, limit int, gs, w *float64) bool
//
// attnGather8AVX512 on two halves (ne ≥ 1): the sum in Y0, Y1 from zero,
// each edge's row of ge added in order, then 0 + it into gs; with w ≠ nil
// each edge's row of da copied to w. It returns false, before it has
// stored anything, if an edge is not a row below limit.
TEXT ·attnGather8AVX2(SB), NOSPLIT, $0-57
	MOVQ edges+0(FP), SI
	MOVQ ne+8(FP), CX
	MOVQ ge+16(FP), R8
	MOVQ da+24(FP), R9
	MOVQ limit+32(FP), R12
	MOVQ gs+40(FP), DX
	MOVQ w+48(FP), R11
	XORQ BX, BX

ygack:
	MOVQ (SI)(BX*8), AX
	CMPQ AX, R12
	JAE  ygabad
	INCQ BX
	CMPQ BX, CX
	JLT  ygack

	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	XORQ BX, BX
	TESTQ R11, R11
	JEQ   ygasum

ygaw:
	MOVQ (SI)(BX*8), AX
	SHLQ $6, AX
	VADDPD (R8)(AX*1), Y0, Y0
	VADDPD 32(R8)(AX*1), Y1, Y1
	VMOVUPD (R9)(AX*1), Y3
	VMOVUPD 32(R9)(AX*1), Y4
	VMOVUPD Y3, (R11)
	VMOVUPD Y4, 32(R11)
	ADDQ $64, R11
	INCQ BX
	CMPQ BX, CX
	JLT  ygaw
	JMP  ygadone

ygasum:
	MOVQ (SI)(BX*8), AX
	SHLQ $6, AX
	VADDPD (R8)(AX*1), Y0, Y0
	VADDPD 32(R8)(AX*1), Y1, Y1
	INCQ BX
	CMPQ BX, CX
	JLT  ygasum

ygadone:
	VADDPD Y2, Y0, Y0
	VADDPD Y2, Y1, Y1
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	MOVB $1, ret+56(FP)
	VZEROUPPER
	RET

ygabad:
	MOVB $0, ret+56(FP)
	RET

// func attnInputGrad8AVX2(acc, gs, gd, as, ad, gh *float64)
//
// attnInputGrad8AVX512 on two halves: head m's block of gh plus
// (acc + gs[m]·as) + gd[m]·ad, the products rounded.
TEXT ·attnInputGrad8AVX2(SB), NOSPLIT, $0-48
	MOVQ acc+0(FP), SI
	MOVQ gs+8(FP), R8
	MOVQ gd+16(FP), R9
	MOVQ as+24(FP), R10
	MOVQ ad+32(FP), R11
	MOVQ gh+40(FP), DI
	XORQ AX, AX
	XORQ BX, BX

yigm:
	VBROADCASTSD (R8)(BX*8), Y1
	VBROADCASTSD (R9)(BX*8), Y2
	VMULPD (R10)(AX*1), Y1, Y3
	VMULPD 32(R10)(AX*1), Y1, Y4
	VMULPD (R11)(AX*1), Y2, Y5
	VMULPD 32(R11)(AX*1), Y2, Y6
	VADDPD (SI)(AX*1), Y3, Y3
	VADDPD 32(SI)(AX*1), Y4, Y4
	VADDPD Y5, Y3, Y3
	VADDPD Y6, Y4, Y4
	VADDPD (DI)(AX*1), Y3, Y3
	VADDPD 32(DI)(AX*1), Y4, Y4
	VMOVUPD Y3, (DI)(AX*1)
	VMOVUPD Y4, 32(DI)(AX*1)
	ADDQ $64, AX
	INCQ BX
	CMPQ BX, $8
	JLT  yigm
	VZEROUPPER
	RET
