#include "textflag.h"

// The AVX2+FMA kernels (kernels.go documents each; generic.go is their
// portable reference). A block of eight float64 is two Y registers (its
// lanes 0–3 and 4–7); every lane goes through exactly the operations of the
// AVX-512 kernel and of the reference, so the three paths give the same
// bits. Where AVX-512 uses a mask register, this code uses a compare result
// as a bit mask: the masked steps of the logarithm become a multiply by 1
// or 0.5 and an add of 0 or 1, which round exactly as the masked
// operations. The constants are vecY, four copies of each (memory operands
// of 32 bytes).

DATA vecY<>+0(SB)/8, $0x3ff0000000000000 // one
DATA vecY<>+8(SB)/8, $0x3ff0000000000000
DATA vecY<>+16(SB)/8, $0x3ff0000000000000
DATA vecY<>+24(SB)/8, $0x3ff0000000000000
DATA vecY<>+32(SB)/8, $0x3fe0000000000000 // half
DATA vecY<>+40(SB)/8, $0x3fe0000000000000
DATA vecY<>+48(SB)/8, $0x3fe0000000000000
DATA vecY<>+56(SB)/8, $0x3fe0000000000000
DATA vecY<>+64(SB)/8, $0x4000000000000000 // two
DATA vecY<>+72(SB)/8, $0x4000000000000000
DATA vecY<>+80(SB)/8, $0x4000000000000000
DATA vecY<>+88(SB)/8, $0x4000000000000000
DATA vecY<>+96(SB)/8, $0x3ff6a09e667f3bcd // sqrt2
DATA vecY<>+104(SB)/8, $0x3ff6a09e667f3bcd
DATA vecY<>+112(SB)/8, $0x3ff6a09e667f3bcd
DATA vecY<>+120(SB)/8, $0x3ff6a09e667f3bcd
DATA vecY<>+128(SB)/8, $0x0170000000000000 // lo
DATA vecY<>+136(SB)/8, $0x0170000000000000
DATA vecY<>+144(SB)/8, $0x0170000000000000
DATA vecY<>+152(SB)/8, $0x0170000000000000
DATA vecY<>+160(SB)/8, $0x7e70000000000000 // hi
DATA vecY<>+168(SB)/8, $0x7e70000000000000
DATA vecY<>+176(SB)/8, $0x7e70000000000000
DATA vecY<>+184(SB)/8, $0x7e70000000000000
DATA vecY<>+192(SB)/8, $0x3fe0000000000000 // lim
DATA vecY<>+200(SB)/8, $0x3fe0000000000000
DATA vecY<>+208(SB)/8, $0x3fe0000000000000
DATA vecY<>+216(SB)/8, $0x3fe0000000000000
DATA vecY<>+224(SB)/8, $0x3fe62e42fee00000 // ln2hi
DATA vecY<>+232(SB)/8, $0x3fe62e42fee00000
DATA vecY<>+240(SB)/8, $0x3fe62e42fee00000
DATA vecY<>+248(SB)/8, $0x3fe62e42fee00000
DATA vecY<>+256(SB)/8, $0x3dea39ef35793c76 // ln2lo
DATA vecY<>+264(SB)/8, $0x3dea39ef35793c76
DATA vecY<>+272(SB)/8, $0x3dea39ef35793c76
DATA vecY<>+280(SB)/8, $0x3dea39ef35793c76
DATA vecY<>+288(SB)/8, $0x3fe5555555555593 // lg1
DATA vecY<>+296(SB)/8, $0x3fe5555555555593
DATA vecY<>+304(SB)/8, $0x3fe5555555555593
DATA vecY<>+312(SB)/8, $0x3fe5555555555593
DATA vecY<>+320(SB)/8, $0x3fd999999997fa04 // lg2
DATA vecY<>+328(SB)/8, $0x3fd999999997fa04
DATA vecY<>+336(SB)/8, $0x3fd999999997fa04
DATA vecY<>+344(SB)/8, $0x3fd999999997fa04
DATA vecY<>+352(SB)/8, $0x3fd2492494229359 // lg3
DATA vecY<>+360(SB)/8, $0x3fd2492494229359
DATA vecY<>+368(SB)/8, $0x3fd2492494229359
DATA vecY<>+376(SB)/8, $0x3fd2492494229359
DATA vecY<>+384(SB)/8, $0x3fcc71c51d8e78af // lg4
DATA vecY<>+392(SB)/8, $0x3fcc71c51d8e78af
DATA vecY<>+400(SB)/8, $0x3fcc71c51d8e78af
DATA vecY<>+408(SB)/8, $0x3fcc71c51d8e78af
DATA vecY<>+416(SB)/8, $0x3fc7466496cb03de // lg5
DATA vecY<>+424(SB)/8, $0x3fc7466496cb03de
DATA vecY<>+432(SB)/8, $0x3fc7466496cb03de
DATA vecY<>+440(SB)/8, $0x3fc7466496cb03de
DATA vecY<>+448(SB)/8, $0x3fc39a09d078c69f // lg6
DATA vecY<>+456(SB)/8, $0x3fc39a09d078c69f
DATA vecY<>+464(SB)/8, $0x3fc39a09d078c69f
DATA vecY<>+472(SB)/8, $0x3fc39a09d078c69f
DATA vecY<>+480(SB)/8, $0x3fc2f112df3e5244 // lg7
DATA vecY<>+488(SB)/8, $0x3fc2f112df3e5244
DATA vecY<>+496(SB)/8, $0x3fc2f112df3e5244
DATA vecY<>+504(SB)/8, $0x3fc2f112df3e5244
DATA vecY<>+512(SB)/8, $0x4330000000000000 // magic
DATA vecY<>+520(SB)/8, $0x4330000000000000
DATA vecY<>+528(SB)/8, $0x4330000000000000
DATA vecY<>+536(SB)/8, $0x4330000000000000
DATA vecY<>+544(SB)/8, $0x43300000000003ff // magic1023
DATA vecY<>+552(SB)/8, $0x43300000000003ff
DATA vecY<>+560(SB)/8, $0x43300000000003ff
DATA vecY<>+568(SB)/8, $0x43300000000003ff
DATA vecY<>+576(SB)/8, $0x000fffffffffffff // mant
DATA vecY<>+584(SB)/8, $0x000fffffffffffff
DATA vecY<>+592(SB)/8, $0x000fffffffffffff
DATA vecY<>+600(SB)/8, $0x000fffffffffffff
DATA vecY<>+608(SB)/8, $0x3ff0000000000000 // exp1023
DATA vecY<>+616(SB)/8, $0x3ff0000000000000
DATA vecY<>+624(SB)/8, $0x3ff0000000000000
DATA vecY<>+632(SB)/8, $0x3ff0000000000000
DATA vecY<>+640(SB)/8, $0x7fffffffffffffff // abs
DATA vecY<>+648(SB)/8, $0x7fffffffffffffff
DATA vecY<>+656(SB)/8, $0x7fffffffffffffff
DATA vecY<>+664(SB)/8, $0x7fffffffffffffff
DATA vecY<>+672(SB)/8, $0xbd6ae7f3e733b81f // s7
DATA vecY<>+680(SB)/8, $0xbd6ae7f3e733b81f
DATA vecY<>+688(SB)/8, $0xbd6ae7f3e733b81f
DATA vecY<>+696(SB)/8, $0xbd6ae7f3e733b81f
DATA vecY<>+704(SB)/8, $0x3de6124613a86d09 // s6
DATA vecY<>+712(SB)/8, $0x3de6124613a86d09
DATA vecY<>+720(SB)/8, $0x3de6124613a86d09
DATA vecY<>+728(SB)/8, $0x3de6124613a86d09
DATA vecY<>+736(SB)/8, $0xbe5ae64567f544e4 // s5
DATA vecY<>+744(SB)/8, $0xbe5ae64567f544e4
DATA vecY<>+752(SB)/8, $0xbe5ae64567f544e4
DATA vecY<>+760(SB)/8, $0xbe5ae64567f544e4
DATA vecY<>+768(SB)/8, $0x3ec71de3a556c734 // s4
DATA vecY<>+776(SB)/8, $0x3ec71de3a556c734
DATA vecY<>+784(SB)/8, $0x3ec71de3a556c734
DATA vecY<>+792(SB)/8, $0x3ec71de3a556c734
DATA vecY<>+800(SB)/8, $0xbf2a01a01a01a01a // s3
DATA vecY<>+808(SB)/8, $0xbf2a01a01a01a01a
DATA vecY<>+816(SB)/8, $0xbf2a01a01a01a01a
DATA vecY<>+824(SB)/8, $0xbf2a01a01a01a01a
DATA vecY<>+832(SB)/8, $0x3f81111111111111 // s2
DATA vecY<>+840(SB)/8, $0x3f81111111111111
DATA vecY<>+848(SB)/8, $0x3f81111111111111
DATA vecY<>+856(SB)/8, $0x3f81111111111111
DATA vecY<>+864(SB)/8, $0xbfc5555555555555 // s1
DATA vecY<>+872(SB)/8, $0xbfc5555555555555
DATA vecY<>+880(SB)/8, $0xbfc5555555555555
DATA vecY<>+888(SB)/8, $0xbfc5555555555555
DATA vecY<>+896(SB)/8, $0x3d2ae7f3e733b81f // c8
DATA vecY<>+904(SB)/8, $0x3d2ae7f3e733b81f
DATA vecY<>+912(SB)/8, $0x3d2ae7f3e733b81f
DATA vecY<>+920(SB)/8, $0x3d2ae7f3e733b81f
DATA vecY<>+928(SB)/8, $0xbda93974a8c07c9d // c7
DATA vecY<>+936(SB)/8, $0xbda93974a8c07c9d
DATA vecY<>+944(SB)/8, $0xbda93974a8c07c9d
DATA vecY<>+952(SB)/8, $0xbda93974a8c07c9d
DATA vecY<>+960(SB)/8, $0x3e21eed8eff8d898 // c6
DATA vecY<>+968(SB)/8, $0x3e21eed8eff8d898
DATA vecY<>+976(SB)/8, $0x3e21eed8eff8d898
DATA vecY<>+984(SB)/8, $0x3e21eed8eff8d898
DATA vecY<>+992(SB)/8, $0xbe927e4fb7789f5c // c5
DATA vecY<>+1000(SB)/8, $0xbe927e4fb7789f5c
DATA vecY<>+1008(SB)/8, $0xbe927e4fb7789f5c
DATA vecY<>+1016(SB)/8, $0xbe927e4fb7789f5c
DATA vecY<>+1024(SB)/8, $0x3efa01a01a01a01a // c4
DATA vecY<>+1032(SB)/8, $0x3efa01a01a01a01a
DATA vecY<>+1040(SB)/8, $0x3efa01a01a01a01a
DATA vecY<>+1048(SB)/8, $0x3efa01a01a01a01a
DATA vecY<>+1056(SB)/8, $0xbf56c16c16c16c17 // c3
DATA vecY<>+1064(SB)/8, $0xbf56c16c16c16c17
DATA vecY<>+1072(SB)/8, $0xbf56c16c16c16c17
DATA vecY<>+1080(SB)/8, $0xbf56c16c16c16c17
DATA vecY<>+1088(SB)/8, $0x3fa5555555555555 // c2
DATA vecY<>+1096(SB)/8, $0x3fa5555555555555
DATA vecY<>+1104(SB)/8, $0x3fa5555555555555
DATA vecY<>+1112(SB)/8, $0x3fa5555555555555
DATA vecY<>+1120(SB)/8, $0xbfe0000000000000 // c1
DATA vecY<>+1128(SB)/8, $0xbfe0000000000000
DATA vecY<>+1136(SB)/8, $0xbfe0000000000000
DATA vecY<>+1144(SB)/8, $0xbfe0000000000000
DATA vecY<>+1152(SB)/8, $0x3ff0000000000000 // c0
DATA vecY<>+1160(SB)/8, $0x3ff0000000000000
DATA vecY<>+1168(SB)/8, $0x3ff0000000000000
DATA vecY<>+1176(SB)/8, $0x3ff0000000000000
GLOBL vecY<>(SB), RODATA|NOPTR, $1184

#define YONE vecY<>+0(SB)
#define YHALF vecY<>+32(SB)
#define YTWO vecY<>+64(SB)
#define YSQRT2 vecY<>+96(SB)
#define YLO vecY<>+128(SB)
#define YHI vecY<>+160(SB)
#define YLIM vecY<>+192(SB)
#define YLN2HI vecY<>+224(SB)
#define YLN2LO vecY<>+256(SB)
#define YLG1 vecY<>+288(SB)
#define YLG2 vecY<>+320(SB)
#define YLG3 vecY<>+352(SB)
#define YLG4 vecY<>+384(SB)
#define YLG5 vecY<>+416(SB)
#define YLG6 vecY<>+448(SB)
#define YLG7 vecY<>+480(SB)
#define YMAGIC vecY<>+512(SB)
#define YMAGIC1023 vecY<>+544(SB)
#define YMANT vecY<>+576(SB)
#define YEXP1023 vecY<>+608(SB)
#define YABS vecY<>+640(SB)
#define YS7 vecY<>+672(SB)
#define YS6 vecY<>+704(SB)
#define YS5 vecY<>+736(SB)
#define YS4 vecY<>+768(SB)
#define YS3 vecY<>+800(SB)
#define YS2 vecY<>+832(SB)
#define YS1 vecY<>+864(SB)
#define YC8 vecY<>+896(SB)
#define YC7 vecY<>+928(SB)
#define YC6 vecY<>+960(SB)
#define YC5 vecY<>+992(SB)
#define YC4 vecY<>+1024(SB)
#define YC3 vecY<>+1056(SB)
#define YC2 vecY<>+1088(SB)
#define YC1 vecY<>+1120(SB)
#define YC0 vecY<>+1152(SB)

// func distAVX2(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int)
TEXT ·distAVX2(SB), NOSPLIT, $0-48
	MOVQ z+0(FP), SI
	MOVQ d0+8(FP), R8
	MOVQ omegaT+16(FP), DI
	MOVQ strideBytes+24(FP), R9
	MOVQ q+32(FP), DX
	MOVQ nb+40(FP), CX

ydist4:
	CMPQ CX, $4
	JLT  ydist1
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ R8, R12

ydist4k:
	VBROADCASTSD (R11), Y8
	VSUBPD (R10), Y8, Y9
	VSUBPD 32(R10), Y8, Y10
	VSUBPD 64(R10), Y8, Y11
	VSUBPD 96(R10), Y8, Y12
	VFMADD231PD Y9, Y9, Y0
	VFMADD231PD Y10, Y10, Y1
	VFMADD231PD Y11, Y11, Y2
	VFMADD231PD Y12, Y12, Y3
	VSUBPD 128(R10), Y8, Y9
	VSUBPD 160(R10), Y8, Y10
	VSUBPD 192(R10), Y8, Y11
	VSUBPD 224(R10), Y8, Y12
	VFMADD231PD Y9, Y9, Y4
	VFMADD231PD Y10, Y10, Y5
	VFMADD231PD Y11, Y11, Y6
	VFMADD231PD Y12, Y12, Y7
	ADDQ $8, R11
	ADDQ R9, R10
	DECQ R12
	JNE  ydist4k
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VMOVUPD Y4, 128(DX)
	VMOVUPD Y5, 160(DX)
	VMOVUPD Y6, 192(DX)
	VMOVUPD Y7, 224(DX)
	ADDQ $256, DI
	ADDQ $256, DX
	SUBQ $4, CX
	JMP  ydist4

ydist1:
	TESTQ CX, CX
	JEQ   ydistdone
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ R8, R12

ydist1k:
	VBROADCASTSD (R11), Y8
	VSUBPD (R10), Y8, Y9
	VSUBPD 32(R10), Y8, Y10
	VFMADD231PD Y9, Y9, Y0
	VFMADD231PD Y10, Y10, Y1
	ADDQ $8, R11
	ADDQ R9, R10
	DECQ R12
	JNE  ydist1k
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	ADDQ $64, DI
	ADDQ $64, DX
	DECQ CX
	JMP  ydist1

ydistdone:
	VZEROUPPER
	RET

// func argsAVX2(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int)
TEXT ·argsAVX2(SB), NOSPLIT, $0-48
	MOVQ z+0(FP), SI
	MOVQ d0+8(FP), R8
	MOVQ omegaT+16(FP), DI
	MOVQ strideBytes+24(FP), R9
	MOVQ q+32(FP), DX
	MOVQ nb+40(FP), CX

yarg4:
	CMPQ CX, $4
	JLT  yarg1
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ R8, R12

yarg4k:
	VBROADCASTSD (R11), Y8
	VFMADD231PD (R10), Y8, Y0
	VFMADD231PD 32(R10), Y8, Y1
	VFMADD231PD 64(R10), Y8, Y2
	VFMADD231PD 96(R10), Y8, Y3
	VFMADD231PD 128(R10), Y8, Y4
	VFMADD231PD 160(R10), Y8, Y5
	VFMADD231PD 192(R10), Y8, Y6
	VFMADD231PD 224(R10), Y8, Y7
	ADDQ $8, R11
	ADDQ R9, R10
	DECQ R12
	JNE  yarg4k
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VMOVUPD Y4, 128(DX)
	VMOVUPD Y5, 160(DX)
	VMOVUPD Y6, 192(DX)
	VMOVUPD Y7, 224(DX)
	ADDQ $256, DI
	ADDQ $256, DX
	SUBQ $4, CX
	JMP  yarg4

yarg1:
	TESTQ CX, CX
	JEQ   yargdone
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ R8, R12

yarg1k:
	VBROADCASTSD (R11), Y8
	VFMADD231PD (R10), Y8, Y0
	VFMADD231PD 32(R10), Y8, Y1
	ADDQ $8, R11
	ADDQ R9, R10
	DECQ R12
	JNE  yarg1k
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	ADDQ $64, DI
	ADDQ $64, DX
	DECQ CX
	JMP  yarg1

yargdone:
	VZEROUPPER
	RET

// func args2AVX2(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int)
TEXT ·args2AVX2(SB), NOSPLIT, $0-48
	MOVQ z+0(FP), SI
	MOVQ d0+8(FP), R8
	MOVQ omegaT+16(FP), DI
	MOVQ strideBytes+24(FP), R9
	MOVQ q+32(FP), DX
	MOVQ nb+40(FP), CX
	TESTQ CX, CX
	JEQ   ya2done

ya2blk:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ R8, R12
	SHRQ $1, R12
	JEQ  ya2odd

ya2pair:
	VBROADCASTSD (R11), Y4
	VBROADCASTSD 8(R11), Y5
	LEAQ (R10)(R9*1), R13
	VFMADD231PD (R10), Y4, Y0
	VFMADD231PD 32(R10), Y4, Y1
	VFMADD231PD (R13), Y5, Y2
	VFMADD231PD 32(R13), Y5, Y3
	ADDQ $16, R11
	LEAQ (R10)(R9*2), R10
	DECQ R12
	JNE  ya2pair

ya2odd:
	TESTQ $1, R8
	JEQ   ya2sum
	VBROADCASTSD (R11), Y4
	VFMADD231PD (R10), Y4, Y0
	VFMADD231PD 32(R10), Y4, Y1

ya2sum:
	VADDPD Y2, Y0, Y0
	VADDPD Y3, Y1, Y1
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	ADDQ $64, DI
	ADDQ $64, DX
	DECQ CX
	JNE  ya2blk

ya2done:
	VZEROUPPER
	RET

// func gradPassAVX2(w *float64, strideBytes int, gy *float64, nc int, e1, e2, c *float64, nb int, s *[16]float64)
//
// s1 in Y0 (lanes 0–3) and Y6 (4–7), s2 in Y1 and Y7; two blocks' sums g
// (Y2, Y5 and Y8, Y9) run side by side, then update s1, s2 in block order.
TEXT ·gradPassAVX2(SB), NOSPLIT, $0-72
	MOVQ w+0(FP), SI
	MOVQ strideBytes+8(FP), R8
	MOVQ gy+16(FP), R9
	MOVQ nc+24(FP), R10
	MOVQ e1+32(FP), R11
	MOVQ e2+40(FP), R12
	MOVQ c+48(FP), R13
	MOVQ nb+56(FP), CX
	MOVQ s+64(FP), DX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ AX, AX

ygp2:
	CMPQ CX, $2
	JLT  ygp1
	VXORPD Y2, Y2, Y2
	VXORPD Y5, Y5, Y5
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	LEAQ (SI)(AX*1), DI
	XORQ BX, BX

ygp2cls:
	VBROADCASTSD (R9)(BX*8), Y3
	VFMADD231PD (DI), Y3, Y2
	VFMADD231PD 32(DI), Y3, Y5
	VFMADD231PD 64(DI), Y3, Y8
	VFMADD231PD 96(DI), Y3, Y9
	ADDQ R8, DI
	INCQ BX
	CMPQ BX, R10
	JLT  ygp2cls
	VMULPD (R12)(AX*1), Y2, Y4
	VMOVUPD Y4, (R13)(AX*1)
	VFMADD231PD (R11)(AX*1), Y2, Y0
	VADDPD Y4, Y1, Y1
	VMULPD 32(R12)(AX*1), Y5, Y4
	VMOVUPD Y4, 32(R13)(AX*1)
	VFMADD231PD 32(R11)(AX*1), Y5, Y6
	VADDPD Y4, Y7, Y7
	VMULPD 64(R12)(AX*1), Y8, Y4
	VMOVUPD Y4, 64(R13)(AX*1)
	VFMADD231PD 64(R11)(AX*1), Y8, Y0
	VADDPD Y4, Y1, Y1
	VMULPD 96(R12)(AX*1), Y9, Y4
	VMOVUPD Y4, 96(R13)(AX*1)
	VFMADD231PD 96(R11)(AX*1), Y9, Y6
	VADDPD Y4, Y7, Y7
	ADDQ $128, AX
	SUBQ $2, CX
	JMP  ygp2

ygp1:
	TESTQ CX, CX
	JEQ   ygpdone
	VXORPD Y2, Y2, Y2
	VXORPD Y5, Y5, Y5
	LEAQ (SI)(AX*1), DI
	XORQ BX, BX

ygp1cls:
	VBROADCASTSD (R9)(BX*8), Y3
	VFMADD231PD (DI), Y3, Y2
	VFMADD231PD 32(DI), Y3, Y5
	ADDQ R8, DI
	INCQ BX
	CMPQ BX, R10
	JLT  ygp1cls
	VMULPD (R12)(AX*1), Y2, Y4
	VMOVUPD Y4, (R13)(AX*1)
	VFMADD231PD (R11)(AX*1), Y2, Y0
	VADDPD Y4, Y1, Y1
	VMULPD 32(R12)(AX*1), Y5, Y4
	VMOVUPD Y4, 32(R13)(AX*1)
	VFMADD231PD 32(R11)(AX*1), Y5, Y6
	VADDPD Y4, Y7, Y7

ygpdone:
	VMOVUPD Y0, (DX)
	VMOVUPD Y6, 32(DX)
	VMOVUPD Y1, 64(DX)
	VMOVUPD Y7, 96(DX)
	VZEROUPPER
	RET

// func gz8AVX2(c, omegaT *float64, strideBytes, nb int, out *[64]float64)
//
// Rows 0–3, then rows 4–7 (eight accumulators each).
TEXT ·gz8AVX2(SB), NOSPLIT, $0-40
	MOVQ c+0(FP), BX
	MOVQ omegaT+8(FP), SI
	MOVQ strideBytes+16(FP), R8
	MOVQ nb+24(FP), R14
	MOVQ out+32(FP), DX
	LEAQ (SI)(R8*1), DI
	LEAQ (DI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	LEAQ (R13)(R8*1), R8
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ AX, AX
	MOVQ R14, CX
	TESTQ CX, CX
	JEQ   ygz8a

ygz8la:
	VMOVUPD (BX)(AX*1), Y8
	VMOVUPD 32(BX)(AX*1), Y9
	VFMADD231PD (SI)(AX*1), Y8, Y0
	VFMADD231PD 32(SI)(AX*1), Y9, Y1
	VFMADD231PD (DI)(AX*1), Y8, Y2
	VFMADD231PD 32(DI)(AX*1), Y9, Y3
	VFMADD231PD (R9)(AX*1), Y8, Y4
	VFMADD231PD 32(R9)(AX*1), Y9, Y5
	VFMADD231PD (R10)(AX*1), Y8, Y6
	VFMADD231PD 32(R10)(AX*1), Y9, Y7
	ADDQ $64, AX
	DECQ CX
	JNE  ygz8la

ygz8a:
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VMOVUPD Y4, 128(DX)
	VMOVUPD Y5, 160(DX)
	VMOVUPD Y6, 192(DX)
	VMOVUPD Y7, 224(DX)
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ AX, AX
	MOVQ R14, CX
	TESTQ CX, CX
	JEQ   ygz8b

ygz8lb:
	VMOVUPD (BX)(AX*1), Y8
	VMOVUPD 32(BX)(AX*1), Y9
	VFMADD231PD (R11)(AX*1), Y8, Y0
	VFMADD231PD 32(R11)(AX*1), Y9, Y1
	VFMADD231PD (R12)(AX*1), Y8, Y2
	VFMADD231PD 32(R12)(AX*1), Y9, Y3
	VFMADD231PD (R13)(AX*1), Y8, Y4
	VFMADD231PD 32(R13)(AX*1), Y9, Y5
	VFMADD231PD (R8)(AX*1), Y8, Y6
	VFMADD231PD 32(R8)(AX*1), Y9, Y7
	ADDQ $64, AX
	DECQ CX
	JNE  ygz8lb

ygz8b:
	VMOVUPD Y0, 256(DX)
	VMOVUPD Y1, 288(DX)
	VMOVUPD Y2, 320(DX)
	VMOVUPD Y3, 352(DX)
	VMOVUPD Y4, 384(DX)
	VMOVUPD Y5, 416(DX)
	VMOVUPD Y6, 448(DX)
	VMOVUPD Y7, 480(DX)
	VZEROUPPER
	RET

// func dot1AVX2(x, y *float64, nb int, out *[8]float64)
TEXT ·dot1AVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ nb+16(FP), CX
	MOVQ out+24(FP), DX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	XORQ AX, AX
	TESTQ CX, CX
	JEQ   yd1done

yd1loop:
	VMOVUPD (SI)(AX*1), Y8
	VMOVUPD 32(SI)(AX*1), Y9
	VFMADD231PD (DI)(AX*1), Y8, Y0
	VFMADD231PD 32(DI)(AX*1), Y9, Y1
	ADDQ $64, AX
	DECQ CX
	JNE  yd1loop

yd1done:
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VZEROUPPER
	RET

// func dot4AVX2(x, y *float64, strideBytes, nb int, out *[32]float64)
TEXT ·dot4AVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ strideBytes+16(FP), R8
	MOVQ nb+24(FP), CX
	MOVQ out+32(FP), DX
	LEAQ (DI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ AX, AX
	TESTQ CX, CX
	JEQ   yd4done

yd4loop:
	VMOVUPD (SI)(AX*1), Y8
	VMOVUPD 32(SI)(AX*1), Y9
	VFMADD231PD (DI)(AX*1), Y8, Y0
	VFMADD231PD 32(DI)(AX*1), Y9, Y1
	VFMADD231PD (R9)(AX*1), Y8, Y2
	VFMADD231PD 32(R9)(AX*1), Y9, Y3
	VFMADD231PD (R10)(AX*1), Y8, Y4
	VFMADD231PD 32(R10)(AX*1), Y9, Y5
	VFMADD231PD (R11)(AX*1), Y8, Y6
	VFMADD231PD 32(R11)(AX*1), Y9, Y7
	ADDQ $64, AX
	DECQ CX
	JNE  yd4loop

yd4done:
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VMOVUPD Y4, 128(DX)
	VMOVUPD Y5, 160(DX)
	VMOVUPD Y6, 192(DX)
	VMOVUPD Y7, 224(DX)
	VZEROUPPER
	RET

// func axpyAVX2(part *float64, strideBytes int, gy *float64, nc int, phi *float64, nb int)
TEXT ·axpyAVX2(SB), NOSPLIT, $0-48
	MOVQ part+0(FP), SI
	MOVQ strideBytes+8(FP), R8
	MOVQ gy+16(FP), R9
	MOVQ nc+24(FP), R10
	MOVQ phi+32(FP), R11
	MOVQ nb+40(FP), R12
	TESTQ R12, R12
	JEQ   yaxdone
	TESTQ R10, R10
	JEQ   yaxdone

yaxcls:
	VBROADCASTSD (R9), Y3
	MOVQ SI, DI
	MOVQ R11, DX
	MOVQ R12, CX

yaxblk:
	VMOVUPD (DI), Y4
	VMOVUPD 32(DI), Y5
	VFMADD231PD (DX), Y3, Y4
	VFMADD231PD 32(DX), Y3, Y5
	VMOVUPD Y4, (DI)
	VMOVUPD Y5, 32(DI)
	ADDQ $64, DI
	ADDQ $64, DX
	DECQ CX
	JNE  yaxblk
	ADDQ $8, R9
	ADDQ R8, SI
	DECQ R10
	JNE  yaxcls

yaxdone:
	VZEROUPPER
	RET

// func gyw2x16AVX2(g0, g1, w *float64, wstrideBytes, nc int, o0, o1 *float64)
//
// GyW for two rows and 16 columns: row 0's sums in Y0–Y3, row 1's in
// Y4–Y7, class k's strip of w in Y8–Y11, gy[0][k] and gy[1][k]
// broadcast in Y12 and Y13; from zero, one fused multiply-add per class.
TEXT ·gyw2x16AVX2(SB), NOSPLIT, $0-56
	MOVQ g0+0(FP), SI
	MOVQ g1+8(FP), DI
	MOVQ w+16(FP), DX
	MOVQ wstrideBytes+24(FP), R8
	MOVQ nc+32(FP), CX
	MOVQ o0+40(FP), R9
	MOVQ o1+48(FP), R10
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	TESTQ CX, CX
	JEQ   gyw2x16AVX2store

gyw2x16AVX2k:
	VMOVUPD (DX), Y8
	VMOVUPD 32(DX), Y9
	VMOVUPD 64(DX), Y10
	VMOVUPD 96(DX), Y11
	VBROADCASTSD (SI), Y12
	VBROADCASTSD (DI), Y13
	VFMADD231PD Y8, Y12, Y0
	VFMADD231PD Y9, Y12, Y1
	VFMADD231PD Y10, Y12, Y2
	VFMADD231PD Y11, Y12, Y3
	VFMADD231PD Y8, Y13, Y4
	VFMADD231PD Y9, Y13, Y5
	VFMADD231PD Y10, Y13, Y6
	VFMADD231PD Y11, Y13, Y7
	ADDQ $8, SI
	ADDQ $8, DI
	ADDQ R8, DX
	DECQ CX
	JNE  gyw2x16AVX2k

gyw2x16AVX2store:
	VMOVUPD Y0, (R9)
	VMOVUPD Y1, 32(R9)
	VMOVUPD Y2, 64(R9)
	VMOVUPD Y3, 96(R9)
	VMOVUPD Y4, (R10)
	VMOVUPD Y5, 32(R10)
	VMOVUPD Y6, 64(R10)
	VMOVUPD Y7, 96(R10)
	VZEROUPPER
	RET

// func gyw2x8AVX2(g0, g1, w *float64, wstrideBytes, nc int, o0, o1 *float64)
//
// GyW for two rows and 8 columns: row 0's sums in Y0–Y1, row 1's in
// Y2–Y3, class k's strip of w in Y8–Y9, gy[0][k] and gy[1][k]
// broadcast in Y12 and Y13; from zero, one fused multiply-add per class.
TEXT ·gyw2x8AVX2(SB), NOSPLIT, $0-56
	MOVQ g0+0(FP), SI
	MOVQ g1+8(FP), DI
	MOVQ w+16(FP), DX
	MOVQ wstrideBytes+24(FP), R8
	MOVQ nc+32(FP), CX
	MOVQ o0+40(FP), R9
	MOVQ o1+48(FP), R10
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	TESTQ CX, CX
	JEQ   gyw2x8AVX2store

gyw2x8AVX2k:
	VMOVUPD (DX), Y8
	VMOVUPD 32(DX), Y9
	VBROADCASTSD (SI), Y12
	VBROADCASTSD (DI), Y13
	VFMADD231PD Y8, Y12, Y0
	VFMADD231PD Y9, Y12, Y1
	VFMADD231PD Y8, Y13, Y2
	VFMADD231PD Y9, Y13, Y3
	ADDQ $8, SI
	ADDQ $8, DI
	ADDQ R8, DX
	DECQ CX
	JNE  gyw2x8AVX2k

gyw2x8AVX2store:
	VMOVUPD Y0, (R9)
	VMOVUPD Y1, 32(R9)
	VMOVUPD Y2, (R10)
	VMOVUPD Y3, 32(R10)
	VZEROUPPER
	RET

// func axpyRows4AVX2(part *float64, strideBytes int, gy *float64, gstrideBytes int, phi *float64, pstrideBytes, rows, nb int)
//
// Four classes, block of eight by block of eight: the block of each
// class's row of part in Y(2k) (entries 0–3) and Y(2k+1) (4–7), loaded
// once; then for each row r in order gy[r][k] broadcast in Y(8+k) and the
// block of φ's row r in Y12, Y13, one fused multiply-add per register, as
// axpyAVX2 row by row; then stored once.
TEXT ·axpyRows4AVX2(SB), NOSPLIT, $0-64
	MOVQ part+0(FP), SI
	MOVQ strideBytes+8(FP), R8
	MOVQ gy+16(FP), R9
	MOVQ gstrideBytes+24(FP), R10
	MOVQ phi+32(FP), R11
	MOVQ pstrideBytes+40(FP), R12
	MOVQ rows+48(FP), R13
	MOVQ nb+56(FP), CX
	TESTQ CX, CX
	JEQ   yarxdone
	TESTQ R13, R13
	JEQ   yarxdone
	LEAQ  (SI)(R8*2), AX

yarxblk:
	VMOVUPD (SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD (SI)(R8*1), Y2
	VMOVUPD 32(SI)(R8*1), Y3
	VMOVUPD (AX), Y4
	VMOVUPD 32(AX), Y5
	VMOVUPD (AX)(R8*1), Y6
	VMOVUPD 32(AX)(R8*1), Y7
	MOVQ    R9, DI
	MOVQ    R11, DX
	MOVQ    R13, BX

yarxrow:
	VBROADCASTSD (DI), Y8
	VBROADCASTSD 8(DI), Y9
	VBROADCASTSD 16(DI), Y10
	VBROADCASTSD 24(DI), Y11
	VMOVUPD      (DX), Y12
	VMOVUPD      32(DX), Y13
	VFMADD231PD  Y12, Y8, Y0
	VFMADD231PD  Y13, Y8, Y1
	VFMADD231PD  Y12, Y9, Y2
	VFMADD231PD  Y13, Y9, Y3
	VFMADD231PD  Y12, Y10, Y4
	VFMADD231PD  Y13, Y10, Y5
	VFMADD231PD  Y12, Y11, Y6
	VFMADD231PD  Y13, Y11, Y7
	ADDQ         R10, DI
	ADDQ         R12, DX
	DECQ         BX
	JNE          yarxrow

	VMOVUPD Y0, (SI)
	VMOVUPD Y1, 32(SI)
	VMOVUPD Y2, (SI)(R8*1)
	VMOVUPD Y3, 32(SI)(R8*1)
	VMOVUPD Y4, (AX)
	VMOVUPD Y5, 32(AX)
	VMOVUPD Y6, (AX)(R8*1)
	VMOVUPD Y7, 32(AX)(R8*1)
	ADDQ    $64, SI
	ADDQ    $64, AX
	ADDQ    $64, R11
	DECQ    CX
	JNE     yarxblk

yarxdone:
	VZEROUPPER
	RET

// func gtxTilesAVX2(gp *float64, x *float64, xStrideBytes, rows int, out *float64, outStrideBytes, ntiles, nc int)
//
// Each 32-column tile as four tiles of eight columns: class k's sums in
// Y(2k) (columns 0–3) and Y(2k+1) (4–7), broadcasts of gp in Y8–Y11.
TEXT ·gtxTilesAVX2(SB), NOSPLIT, $0-64
	MOVQ gp+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ xStrideBytes+16(FP), R8
	MOVQ rows+24(FP), R9
	MOVQ out+32(FP), R10
	MOVQ outStrideBytes+40(FP), R11
	MOVQ ntiles+48(FP), R12
	MOVQ nc+56(FP), R13
	SHLQ $2, R12
	TESTQ R12, R12
	JEQ   ygtdone
	TESTQ R9, R9
	JEQ   ygtdone

ygttile:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ DI, DX
	MOVQ SI, BX
	MOVQ R9, CX

ygtrow:
	VMOVUPD (DX), Y12
	VMOVUPD 32(DX), Y13
	VBROADCASTSD (BX), Y8
	VBROADCASTSD 8(BX), Y9
	VBROADCASTSD 16(BX), Y10
	VBROADCASTSD 24(BX), Y11
	VFMADD231PD Y12, Y8, Y0
	VFMADD231PD Y13, Y8, Y1
	VFMADD231PD Y12, Y9, Y2
	VFMADD231PD Y13, Y9, Y3
	VFMADD231PD Y12, Y10, Y4
	VFMADD231PD Y13, Y10, Y5
	VFMADD231PD Y12, Y11, Y6
	VFMADD231PD Y13, Y11, Y7
	ADDQ R8, DX
	ADDQ $32, BX
	DECQ CX
	JNE  ygtrow

	MOVQ R10, AX
	VADDPD (AX), Y0, Y0
	VADDPD 32(AX), Y1, Y1
	VMOVUPD Y0, (AX)
	VMOVUPD Y1, 32(AX)
	CMPQ R13, $2
	JLT  ygtnext
	ADDQ R11, AX
	VADDPD (AX), Y2, Y2
	VADDPD 32(AX), Y3, Y3
	VMOVUPD Y2, (AX)
	VMOVUPD Y3, 32(AX)
	CMPQ R13, $3
	JLT  ygtnext
	ADDQ R11, AX
	VADDPD (AX), Y4, Y4
	VADDPD 32(AX), Y5, Y5
	VMOVUPD Y4, (AX)
	VMOVUPD Y5, 32(AX)
	CMPQ R13, $4
	JLT  ygtnext
	ADDQ R11, AX
	VADDPD (AX), Y6, Y6
	VADDPD 32(AX), Y7, Y7
	VMOVUPD Y6, (AX)
	VMOVUPD Y7, 32(AX)

ygtnext:
	ADDQ $64, DI
	ADDQ $64, R10
	DECQ R12
	JNE  ygttile

ygtdone:
	VZEROUPPER
	RET

// The HyLa passes on one half-block (four lanes at byte offset off from AX).
// Y14 = 1, Y15 = a; Y13 collects the bad lanes of the block.

// invq (Y1), p (Y2) and the range of p.
#define YA1(off) \
	VDIVPD off(SI)(AX*1), Y14, Y1; \
	VMULPD Y1, Y15, Y2; \
	VCMPPD $0x11, YLO, Y2, Y3; \
	VORPD Y3, Y13, Y13; \
	VCMPPD $0x1e, YHI, Y2, Y3; \
	VORPD Y3, Y13, Y13; \
	VCMPPD $0x03, Y2, Y2, Y3; \
	VORPD Y3, Y13, Y13

// exponent e (Y3), mantissa m (Y4), f (Y5), s (Y6); e exactly as a float
// by the 2^52 trick (|e| < 2^11).
#define YA2 \
	VPSRLQ $52, Y2, Y3; \
	VPOR YMAGIC, Y3, Y3; \
	VSUBPD YMAGIC1023, Y3, Y3; \
	VPAND YMANT, Y2, Y4; \
	VPOR YEXP1023, Y4, Y4; \
	VCMPPD $0x1e, YSQRT2, Y4, Y7; \
	VANDPD YHALF, Y7, Y5; \
	VSUBPD Y5, Y14, Y5; \
	VMULPD Y5, Y4, Y4; \
	VANDPD Y14, Y7, Y5; \
	VADDPD Y5, Y3, Y3; \
	VSUBPD Y14, Y4, Y5; \
	VADDPD YTWO, Y5, Y6; \
	VDIVPD Y6, Y5, Y6

// R = t1 + t2 (Y9).
#define YA3 \
	VMULPD Y6, Y6, Y7; \
	VMULPD Y7, Y7, Y8; \
	VMULPD YLG7, Y8, Y9; \
	VADDPD YLG5, Y9, Y9; \
	VMULPD Y9, Y8, Y9; \
	VADDPD YLG3, Y9, Y9; \
	VMULPD Y9, Y8, Y9; \
	VADDPD YLG1, Y9, Y9; \
	VMULPD Y9, Y7, Y9; \
	VMULPD YLG6, Y8, Y10; \
	VADDPD YLG4, Y10, Y10; \
	VMULPD Y10, Y8, Y10; \
	VADDPD YLG2, Y10, Y10; \
	VMULPD Y10, Y8, Y10; \
	VADDPD Y10, Y9, Y9

// log p (Y11).
#define YA4 \
	VMULPD YHALF, Y5, Y10; \
	VMULPD Y5, Y10, Y10; \
	VADDPD Y9, Y10, Y11; \
	VMULPD Y11, Y6, Y11; \
	VMULPD YLN2LO, Y3, Y7; \
	VADDPD Y7, Y11, Y11; \
	VSUBPD Y11, Y10, Y11; \
	VSUBPD Y5, Y11, Y11; \
	VMULPD YLN2HI, Y3, Y7; \
	VSUBPD Y11, Y7, Y11

// func mathAAVX2(q, lam, phi, e1, e2 *float64, nb int, a float64, buf *float64) int
//
// mathAAVX512 on half-blocks, in two loops over the blocks, each of
// independent iterations, so the CPU overlaps several blocks' chains (one
// loop doing all of a block is a chain of about a hundred cycles of
// latency, and the CPU overlapped little more than its two half-blocks:
// 1.4 times the CPU time of this): the first computes invq,
// p and the reduction e, f, s (YA1, YA2) and stores invq into e2, p into
// phi, f into e1 and e, s into buf (two runs of up to nb·8 values, the
// second at byte offset 2048: nb ≤ 32), stopping before the first block
// with a p out of range; the second reloads e, f, s for those blocks and
// computes log p and δ = λ'·log p (YA3, YA4), stopping before the first
// block with an |δ| > 0.5. Every lane goes through the operations of
// mathAAVX512 (the values between the loops are stored and reloaded
// exactly). Blocks at or past the returned count are unspecified.
TEXT ·mathAAVX2(SB), NOSPLIT, $0-72
	MOVQ q+0(FP), SI
	MOVQ lam+8(FP), R8
	MOVQ phi+16(FP), R11
	MOVQ e1+24(FP), R12
	MOVQ e2+32(FP), R13
	MOVQ nb+40(FP), CX
	VBROADCASTSD a+48(FP), Y15
	MOVQ buf+56(FP), DI
	LEAQ 2048(DI), R9
	VMOVUPD YONE, Y14
	XORQ DX, DX
	XORQ AX, AX
	TESTQ CX, CX
	JEQ   yma_done

yma_p1:
	VXORPD Y13, Y13, Y13
	YA1(0)
	YA2
	VMOVUPD Y1, (R13)(AX*1)
	VMOVUPD Y2, (R11)(AX*1)
	VMOVUPD Y5, (R12)(AX*1)
	VMOVUPD Y3, (DI)(AX*1)
	VMOVUPD Y6, (R9)(AX*1)
	YA1(32)
	YA2
	VMOVUPD Y1, 32(R13)(AX*1)
	VMOVUPD Y2, 32(R11)(AX*1)
	VMOVUPD Y5, 32(R12)(AX*1)
	VMOVUPD Y3, 32(DI)(AX*1)
	VMOVUPD Y6, 32(R9)(AX*1)
	VMOVMSKPD Y13, BX
	TESTQ BX, BX
	JNE   yma_p2start
	ADDQ $64, AX
	INCQ DX
	DECQ CX
	JNE  yma_p1

yma_p2start:
	MOVQ DX, CX
	XORQ DX, DX
	XORQ AX, AX
	TESTQ CX, CX
	JEQ   yma_done

yma_p2:
	VXORPD Y13, Y13, Y13
	VMOVUPD (DI)(AX*1), Y3
	VMOVUPD (R12)(AX*1), Y5
	VMOVUPD (R9)(AX*1), Y6
	YA3
	YA4
	VMOVUPD (R8)(AX*1), Y12
	VMULPD Y11, Y12, Y3
	VANDPD YABS, Y3, Y4
	VCMPPD $0x1e, YLIM, Y4, Y7
	VORPD Y7, Y13, Y13
	VMOVUPD Y3, (R12)(AX*1)
	VMOVUPD 32(DI)(AX*1), Y3
	VMOVUPD 32(R12)(AX*1), Y5
	VMOVUPD 32(R9)(AX*1), Y6
	YA3
	YA4
	VMOVUPD 32(R8)(AX*1), Y12
	VMULPD Y11, Y12, Y3
	VANDPD YABS, Y3, Y4
	VCMPPD $0x1e, YLIM, Y4, Y7
	VORPD Y7, Y13, Y13
	VMOVUPD Y3, 32(R12)(AX*1)
	VMOVMSKPD Y13, BX
	TESTQ BX, BX
	JNE   yma_done
	ADDQ $64, AX
	INCQ DX
	DECQ CX
	JNE  yma_p2

yma_done:
	MOVQ DX, ret+64(FP)
	VZEROUPPER
	RET

// sin δ (x8), cos δ (x9) of δ in x3 (x7 = δ²).
#define YSC(x3, x7, x8, x9) \
	VMULPD x3, x3, x7; \
	VMOVUPD YS7, x8; \
	VFMADD213PD YS6, x7, x8; \
	VFMADD213PD YS5, x7, x8; \
	VFMADD213PD YS4, x7, x8; \
	VFMADD213PD YS3, x7, x8; \
	VFMADD213PD YS2, x7, x8; \
	VFMADD213PD YS1, x7, x8; \
	VMULPD x8, x7, x8; \
	VMULPD x3, x8, x8; \
	VADDPD x3, x8, x8; \
	VMOVUPD YC8, x9; \
	VFMADD213PD YC7, x7, x9; \
	VFMADD213PD YC6, x7, x9; \
	VFMADD213PD YC5, x7, x9; \
	VFMADD213PD YC4, x7, x9; \
	VFMADD213PD YC3, x7, x9; \
	VFMADD213PD YC2, x7, x9; \
	VFMADD213PD YC1, x7, x9; \
	VFMADD213PD YC0, x7, x9

// The outputs of one half-block with mag in Y5 (Y13 = ρ).
#define YBHALF(off) \
	VMOVUPD off(R12)(AX*1), Y3; \
	VMOVUPD off(R13)(AX*1), Y1; \
	VMOVUPD off(R8)(AX*1), Y12; \
	YSC(Y3, Y7, Y8, Y9); \
	VMOVUPD off(R9)(AX*1), Y0; \
	VMOVUPD off(R10)(AX*1), Y4; \
	VMULPD Y9, Y0, Y10; \
	VMULPD Y8, Y4, Y11; \
	VADDPD Y11, Y10, Y10; \
	VMULPD Y9, Y4, Y11; \
	VMULPD Y8, Y0, Y2; \
	VSUBPD Y2, Y11, Y11; \
	VMULPD Y11, Y5, Y2; \
	VMOVUPD Y2, off(R11)(AX*1); \
	VMULPD Y11, Y13, Y7; \
	VMULPD Y10, Y12, Y8; \
	VSUBPD Y8, Y7, Y7; \
	VMULPD Y7, Y5, Y7; \
	VMOVUPD Y7, off(R12)(AX*1); \
	VMULPD Y1, Y7, Y7; \
	VMOVUPD Y7, off(R13)(AX*1)

// func mathBAVX2(lam, sinB, cosB, phi, e1, e2 *float64, nb int, twoRho int)
//
// mathBAVX512 on half-blocks: both halves' powers (Y5, Y15; bases Y6, Y7),
// then each half's outputs.
TEXT ·mathBAVX2(SB), NOSPLIT, $0-64
	MOVQ lam+0(FP), R8
	MOVQ sinB+8(FP), R9
	MOVQ cosB+16(FP), R10
	MOVQ phi+24(FP), R11
	MOVQ e1+32(FP), R12
	MOVQ e2+40(FP), R13
	MOVQ nb+48(FP), CX
	MOVQ twoRho+56(FP), DI
	VMOVUPD YONE, Y14
	CVTSQ2SD DI, X0
	MULSD YHALF, X0
	VBROADCASTSD X0, Y13
	XORQ AX, AX
	TESTQ CX, CX
	JEQ   ymb_done

ymb_blk:
	VMOVUPD (R11)(AX*1), Y6
	VMOVUPD 32(R11)(AX*1), Y7
	TESTQ $1, DI
	JEQ   ymb_even
	VSQRTPD Y6, Y5
	VSQRTPD Y7, Y15
	JMP   ymb_pow

ymb_even:
	VMOVAPD Y14, Y5
	VMOVAPD Y14, Y15

ymb_pow:
	MOVQ DI, BX
	SHRQ $1, BX

ymb_powloop:
	TESTQ BX, BX
	JEQ   ymb_powdone
	TESTQ $1, BX
	JEQ   ymb_powsq
	VMULPD Y6, Y5, Y5
	VMULPD Y7, Y15, Y15

ymb_powsq:
	VMULPD Y6, Y6, Y6
	VMULPD Y7, Y7, Y7
	SHRQ $1, BX
	JMP  ymb_powloop

ymb_powdone:
	YBHALF(0)
	VMOVAPD Y15, Y5
	YBHALF(32)
	ADDQ $64, AX
	DECQ CX
	JNE  ymb_blk

ymb_done:
	VZEROUPPER
	RET

// func sinCosAddAVX2(arg, sinB, cosB *float64, scale float64, o, e *float64) bool
TEXT ·sinCosAddAVX2(SB), NOSPLIT, $0-49
	MOVQ arg+0(FP), SI
	MOVQ sinB+8(FP), R9
	MOVQ cosB+16(FP), R10
	MOVQ o+32(FP), R11
	MOVQ e+40(FP), R12
	VMOVUPD (SI), Y3
	VMOVUPD 32(SI), Y13
	VANDPD YABS, Y3, Y4
	VCMPPD $0x1e, YLIM, Y4, Y4
	VCMPPD $0x03, Y3, Y3, Y5
	VORPD Y5, Y4, Y4
	VANDPD YABS, Y13, Y6
	VCMPPD $0x1e, YLIM, Y6, Y6
	VORPD Y6, Y4, Y4
	VCMPPD $0x03, Y13, Y13, Y5
	VORPD Y5, Y4, Y4
	VMOVMSKPD Y4, BX
	TESTQ BX, BX
	JNE   ysc_bad
	VBROADCASTSD scale+24(FP), Y15
	VXORPD Y14, Y14, Y14
	XORQ AX, AX

ysc_half:
	YSC(Y3, Y7, Y8, Y9)
	VMOVUPD (R9)(AX*1), Y0
	VMOVUPD (R10)(AX*1), Y4
	VMULPD Y9, Y0, Y10
	VMULPD Y8, Y4, Y11
	VADDPD Y11, Y10, Y10
	VMULPD Y9, Y4, Y11
	VMULPD Y8, Y0, Y2
	VSUBPD Y2, Y11, Y11
	VMULPD Y11, Y15, Y2
	VMOVUPD Y2, (R11)(AX*1)
	VMULPD Y10, Y15, Y2
	VSUBPD Y2, Y14, Y2
	VMOVUPD Y2, (R12)(AX*1)
	CMPQ AX, $32
	JEQ  ysc_ok
	MOVQ $32, AX
	VMOVAPD Y13, Y3
	JMP  ysc_half

ysc_ok:
	MOVB $1, ret+48(FP)
	VZEROUPPER
	RET

ysc_bad:
	MOVB $0, ret+48(FP)
	VZEROUPPER
	RET

// func spmmRow4AVX2(idx *int32, val *float64, nnz int, src *float64, strideBytes int, d *float64, accumulate int)
//
// spmmRowAVX2 for four columns (one Y register): the columns past a row's
// last block of eight, on the AVX2 and AVX-512 paths. Per column the same
// operations as spmmRowGeneric: each product rounded, then added in q
// order to d (accumulate) or to zero.
TEXT ·spmmRow4AVX2(SB), NOSPLIT, $0-56
	MOVQ idx+0(FP), SI
	MOVQ val+8(FP), R8
	MOVQ nnz+16(FP), R9
	MOVQ src+24(FP), DI
	MOVQ strideBytes+32(FP), R10
	MOVQ d+40(FP), DX
	MOVQ accumulate+48(FP), R11
	VXORPD Y0, Y0, Y0
	TESTQ R11, R11
	JEQ   ysq4go
	VMOVUPD (DX), Y0

ysq4go:
	XORQ BX, BX
	TESTQ R9, R9
	JEQ   ysq4store

ysq4q:
	MOVLQSX (SI)(BX*4), AX
	IMULQ R10, AX
	ADDQ DI, AX
	VBROADCASTSD (R8)(BX*8), Y8
	VMULPD (AX), Y8, Y9
	VADDPD Y9, Y0, Y0
	INCQ BX
	CMPQ BX, R9
	JLT  ysq4q

ysq4store:
	VMOVUPD Y0, (DX)
	VZEROUPPER
	RET

// func spmmRow6AVX2(idx *int32, val *float64, nnz int, src *float64, strideBytes int, d *float64, accumulate int)
//
// spmmRowAVX2 on exactly six blocks of eight columns (48) in one pass over
// the row's entries: the sums in Y0–Y11, val[q] broadcast in Y12, the
// products in Y13–Y15. A 52-column product (R52's classes) takes this
// pass and spmmRow4AVX2's instead of four passes.
TEXT ·spmmRow6AVX2(SB), NOSPLIT, $0-56
	MOVQ idx+0(FP), SI
	MOVQ val+8(FP), R8
	MOVQ nnz+16(FP), R9
	MOVQ src+24(FP), DI
	MOVQ strideBytes+32(FP), R10
	MOVQ d+40(FP), DX
	MOVQ accumulate+48(FP), R11
	TESTQ R11, R11
	JEQ   ysp6zero
	VMOVUPD (DX), Y0
	VMOVUPD 32(DX), Y1
	VMOVUPD 64(DX), Y2
	VMOVUPD 96(DX), Y3
	VMOVUPD 128(DX), Y4
	VMOVUPD 160(DX), Y5
	VMOVUPD 192(DX), Y6
	VMOVUPD 224(DX), Y7
	VMOVUPD 256(DX), Y8
	VMOVUPD 288(DX), Y9
	VMOVUPD 320(DX), Y10
	VMOVUPD 352(DX), Y11
	JMP   ysp6go

ysp6zero:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11

ysp6go:
	XORQ BX, BX
	TESTQ R9, R9
	JEQ   ysp6store

ysp6q:
	MOVLQSX (SI)(BX*4), AX
	IMULQ R10, AX
	ADDQ DI, AX
	VBROADCASTSD (R8)(BX*8), Y12
	VMULPD (AX), Y12, Y13
	VMULPD 32(AX), Y12, Y14
	VMULPD 64(AX), Y12, Y15
	VADDPD Y13, Y0, Y0
	VADDPD Y14, Y1, Y1
	VADDPD Y15, Y2, Y2
	VMULPD 96(AX), Y12, Y13
	VMULPD 128(AX), Y12, Y14
	VMULPD 160(AX), Y12, Y15
	VADDPD Y13, Y3, Y3
	VADDPD Y14, Y4, Y4
	VADDPD Y15, Y5, Y5
	VMULPD 192(AX), Y12, Y13
	VMULPD 224(AX), Y12, Y14
	VMULPD 256(AX), Y12, Y15
	VADDPD Y13, Y6, Y6
	VADDPD Y14, Y7, Y7
	VADDPD Y15, Y8, Y8
	VMULPD 288(AX), Y12, Y13
	VMULPD 320(AX), Y12, Y14
	VMULPD 352(AX), Y12, Y15
	VADDPD Y13, Y9, Y9
	VADDPD Y14, Y10, Y10
	VADDPD Y15, Y11, Y11
	INCQ BX
	CMPQ BX, R9
	JLT  ysp6q

ysp6store:
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VMOVUPD Y4, 128(DX)
	VMOVUPD Y5, 160(DX)
	VMOVUPD Y6, 192(DX)
	VMOVUPD Y7, 224(DX)
	VMOVUPD Y8, 256(DX)
	VMOVUPD Y9, 288(DX)
	VMOVUPD Y10, 320(DX)
	VMOVUPD Y11, 352(DX)
	VZEROUPPER
	RET

// func spmmRowAVX2(idx *int32, val *float64, nnz int, src *float64, strideBytes int, d *float64, nb int, accumulate int)
//
// One row of a sparse×dense product (SpMMRow) on nb blocks of eight columns,
// four blocks at a time, then one: acc = d (accumulate ≠ 0) or 0, then for
// each entry q in order acc = acc + val[q]·src[idx[q]] (the product rounded
// first, never fused).
TEXT ·spmmRowAVX2(SB), NOSPLIT, $0-64
	MOVQ idx+0(FP), SI
	MOVQ val+8(FP), R8
	MOVQ nnz+16(FP), R9
	MOVQ src+24(FP), DI
	MOVQ strideBytes+32(FP), R10
	MOVQ d+40(FP), DX
	MOVQ nb+48(FP), CX
	MOVQ accumulate+56(FP), R11

ysp4:
	CMPQ CX, $4
	JLT  ysp1
	TESTQ R11, R11
	JEQ   ysp4zero
	VMOVUPD (DX), Y0
	VMOVUPD 32(DX), Y1
	VMOVUPD 64(DX), Y2
	VMOVUPD 96(DX), Y3
	VMOVUPD 128(DX), Y4
	VMOVUPD 160(DX), Y5
	VMOVUPD 192(DX), Y6
	VMOVUPD 224(DX), Y7
	JMP   ysp4go

ysp4zero:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

ysp4go:
	XORQ BX, BX
	TESTQ R9, R9
	JEQ   ysp4store

ysp4q:
	MOVLQSX (SI)(BX*4), AX
	IMULQ R10, AX
	ADDQ DI, AX
	VBROADCASTSD (R8)(BX*8), Y8
	VMULPD (AX), Y8, Y9
	VMULPD 32(AX), Y8, Y10
	VMULPD 64(AX), Y8, Y11
	VMULPD 96(AX), Y8, Y12
	VADDPD Y9, Y0, Y0
	VADDPD Y10, Y1, Y1
	VADDPD Y11, Y2, Y2
	VADDPD Y12, Y3, Y3
	VMULPD 128(AX), Y8, Y9
	VMULPD 160(AX), Y8, Y10
	VMULPD 192(AX), Y8, Y11
	VMULPD 224(AX), Y8, Y12
	VADDPD Y9, Y4, Y4
	VADDPD Y10, Y5, Y5
	VADDPD Y11, Y6, Y6
	VADDPD Y12, Y7, Y7
	INCQ BX
	CMPQ BX, R9
	JLT  ysp4q

ysp4store:
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VMOVUPD Y4, 128(DX)
	VMOVUPD Y5, 160(DX)
	VMOVUPD Y6, 192(DX)
	VMOVUPD Y7, 224(DX)
	ADDQ $256, DX
	ADDQ $256, DI
	SUBQ $4, CX
	JMP  ysp4

ysp1:
	TESTQ CX, CX
	JEQ   yspdone
	TESTQ R11, R11
	JEQ   ysp1zero
	VMOVUPD (DX), Y0
	VMOVUPD 32(DX), Y1
	JMP   ysp1go

ysp1zero:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1

ysp1go:
	XORQ BX, BX
	TESTQ R9, R9
	JEQ   ysp1store

ysp1q:
	MOVLQSX (SI)(BX*4), AX
	IMULQ R10, AX
	ADDQ DI, AX
	VBROADCASTSD (R8)(BX*8), Y8
	VMULPD (AX), Y8, Y9
	VMULPD 32(AX), Y8, Y10
	VADDPD Y9, Y0, Y0
	VADDPD Y10, Y1, Y1
	INCQ BX
	CMPQ BX, R9
	JLT  ysp1q

ysp1store:
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	ADDQ $64, DX
	ADDQ $64, DI
	DECQ CX
	JMP  ysp1

yspdone:
	VZEROUPPER
	RET

// Constants of rffExactAVX2 (the math package's sincos), four copies each.
DATA vecR<>+0(SB)/8, $0x8000000000000000 // sign
DATA vecR<>+8(SB)/8, $0x8000000000000000
DATA vecR<>+16(SB)/8, $0x8000000000000000
DATA vecR<>+24(SB)/8, $0x8000000000000000
DATA vecR<>+32(SB)/8, $0x3ff45f306dc9c883 // fopi
DATA vecR<>+40(SB)/8, $0x3ff45f306dc9c883
DATA vecR<>+48(SB)/8, $0x3ff45f306dc9c883
DATA vecR<>+56(SB)/8, $0x3ff45f306dc9c883
DATA vecR<>+64(SB)/8, $0x3fc0000000000000 // eighth
DATA vecR<>+72(SB)/8, $0x3fc0000000000000
DATA vecR<>+80(SB)/8, $0x3fc0000000000000
DATA vecR<>+88(SB)/8, $0x3fc0000000000000
DATA vecR<>+96(SB)/8, $0x4020000000000000 // eight
DATA vecR<>+104(SB)/8, $0x4020000000000000
DATA vecR<>+112(SB)/8, $0x4020000000000000
DATA vecR<>+120(SB)/8, $0x4020000000000000
DATA vecR<>+128(SB)/8, $0x4008000000000000 // three
DATA vecR<>+136(SB)/8, $0x4008000000000000
DATA vecR<>+144(SB)/8, $0x4008000000000000
DATA vecR<>+152(SB)/8, $0x4008000000000000
DATA vecR<>+160(SB)/8, $0x4010000000000000 // four
DATA vecR<>+168(SB)/8, $0x4010000000000000
DATA vecR<>+176(SB)/8, $0x4010000000000000
DATA vecR<>+184(SB)/8, $0x4010000000000000
DATA vecR<>+192(SB)/8, $0x41c0000000000000 // smax
DATA vecR<>+200(SB)/8, $0x41c0000000000000
DATA vecR<>+208(SB)/8, $0x41c0000000000000
DATA vecR<>+216(SB)/8, $0x41c0000000000000
DATA vecR<>+224(SB)/8, $0x3fe921fb40000000 // pi4a
DATA vecR<>+232(SB)/8, $0x3fe921fb40000000
DATA vecR<>+240(SB)/8, $0x3fe921fb40000000
DATA vecR<>+248(SB)/8, $0x3fe921fb40000000
DATA vecR<>+256(SB)/8, $0x3e64442d00000000 // pi4b
DATA vecR<>+264(SB)/8, $0x3e64442d00000000
DATA vecR<>+272(SB)/8, $0x3e64442d00000000
DATA vecR<>+280(SB)/8, $0x3e64442d00000000
DATA vecR<>+288(SB)/8, $0x3ce8469898cc5170 // pi4c
DATA vecR<>+296(SB)/8, $0x3ce8469898cc5170
DATA vecR<>+304(SB)/8, $0x3ce8469898cc5170
DATA vecR<>+312(SB)/8, $0x3ce8469898cc5170
DATA vecR<>+320(SB)/8, $0x3de5d8fd1fd19ccd // ss0
DATA vecR<>+328(SB)/8, $0x3de5d8fd1fd19ccd
DATA vecR<>+336(SB)/8, $0x3de5d8fd1fd19ccd
DATA vecR<>+344(SB)/8, $0x3de5d8fd1fd19ccd
DATA vecR<>+352(SB)/8, $0xbe5ae5e5a9291f5d // ss1
DATA vecR<>+360(SB)/8, $0xbe5ae5e5a9291f5d
DATA vecR<>+368(SB)/8, $0xbe5ae5e5a9291f5d
DATA vecR<>+376(SB)/8, $0xbe5ae5e5a9291f5d
DATA vecR<>+384(SB)/8, $0x3ec71de3567d48a1 // ss2
DATA vecR<>+392(SB)/8, $0x3ec71de3567d48a1
DATA vecR<>+400(SB)/8, $0x3ec71de3567d48a1
DATA vecR<>+408(SB)/8, $0x3ec71de3567d48a1
DATA vecR<>+416(SB)/8, $0xbf2a01a019bfdf03 // ss3
DATA vecR<>+424(SB)/8, $0xbf2a01a019bfdf03
DATA vecR<>+432(SB)/8, $0xbf2a01a019bfdf03
DATA vecR<>+440(SB)/8, $0xbf2a01a019bfdf03
DATA vecR<>+448(SB)/8, $0x3f8111111110f7d0 // ss4
DATA vecR<>+456(SB)/8, $0x3f8111111110f7d0
DATA vecR<>+464(SB)/8, $0x3f8111111110f7d0
DATA vecR<>+472(SB)/8, $0x3f8111111110f7d0
DATA vecR<>+480(SB)/8, $0xbfc5555555555548 // ss5
DATA vecR<>+488(SB)/8, $0xbfc5555555555548
DATA vecR<>+496(SB)/8, $0xbfc5555555555548
DATA vecR<>+504(SB)/8, $0xbfc5555555555548
DATA vecR<>+512(SB)/8, $0xbda8fa49a0861a9b // sc0
DATA vecR<>+520(SB)/8, $0xbda8fa49a0861a9b
DATA vecR<>+528(SB)/8, $0xbda8fa49a0861a9b
DATA vecR<>+536(SB)/8, $0xbda8fa49a0861a9b
DATA vecR<>+544(SB)/8, $0x3e21ee9d7b4e3f05 // sc1
DATA vecR<>+552(SB)/8, $0x3e21ee9d7b4e3f05
DATA vecR<>+560(SB)/8, $0x3e21ee9d7b4e3f05
DATA vecR<>+568(SB)/8, $0x3e21ee9d7b4e3f05
DATA vecR<>+576(SB)/8, $0xbe927e4f7eac4bc6 // sc2
DATA vecR<>+584(SB)/8, $0xbe927e4f7eac4bc6
DATA vecR<>+592(SB)/8, $0xbe927e4f7eac4bc6
DATA vecR<>+600(SB)/8, $0xbe927e4f7eac4bc6
DATA vecR<>+608(SB)/8, $0x3efa01a019c844f5 // sc3
DATA vecR<>+616(SB)/8, $0x3efa01a019c844f5
DATA vecR<>+624(SB)/8, $0x3efa01a019c844f5
DATA vecR<>+632(SB)/8, $0x3efa01a019c844f5
DATA vecR<>+640(SB)/8, $0xbf56c16c16c14f91 // sc4
DATA vecR<>+648(SB)/8, $0xbf56c16c16c14f91
DATA vecR<>+656(SB)/8, $0xbf56c16c16c14f91
DATA vecR<>+664(SB)/8, $0xbf56c16c16c14f91
DATA vecR<>+672(SB)/8, $0x3fa555555555554b // sc5
DATA vecR<>+680(SB)/8, $0x3fa555555555554b
DATA vecR<>+688(SB)/8, $0x3fa555555555554b
DATA vecR<>+696(SB)/8, $0x3fa555555555554b
GLOBL vecR<>(SB), RODATA|NOPTR, $704
#define RSIGN vecR<>+0(SB)
#define RFOPI vecR<>+32(SB)
#define REIGHTH vecR<>+64(SB)
#define REIGHT vecR<>+96(SB)
#define RTHREE vecR<>+128(SB)
#define RFOUR vecR<>+160(SB)
#define RSMAX vecR<>+192(SB)
#define RPI4A vecR<>+224(SB)
#define RPI4B vecR<>+256(SB)
#define RPI4C vecR<>+288(SB)
#define RSS0 vecR<>+320(SB)
#define RSS1 vecR<>+352(SB)
#define RSS2 vecR<>+384(SB)
#define RSS3 vecR<>+416(SB)
#define RSS4 vecR<>+448(SB)
#define RSS5 vecR<>+480(SB)
#define RSC0 vecR<>+512(SB)
#define RSC1 vecR<>+544(SB)
#define RSC2 vecR<>+576(SB)
#define RSC3 vecR<>+608(SB)
#define RSC4 vecR<>+640(SB)
#define RSC5 vecR<>+672(SB)

// One half-block of rffExactAVX2: x from e[off], o[off] = scale·cos x,
// e[off] = −scale·sin x (Y14 = scale, Y15 = −scale), with math.Sincos's
// operations: j = trunc(|x|·4/π), odd j moves up by one, the octant j mod 8,
// z = ((|x| − j·π4A) − j·π4B) − j·π4C, the sign flips, the polynomials
// (multiply, then add: nothing fused) and the swap of sin and cos.
#define RXHALF(off) \
	VMOVUPD off(R12), Y0; \
	VANDPD RSIGN, Y0, Y1; \
	VANDPD YABS, Y0, Y2; \
	VMULPD RFOPI, Y2, Y3; \
	VROUNDPD $3, Y3, Y3; \
	VMULPD YHALF, Y3, Y5; \
	VROUNDPD $3, Y5, Y6; \
	VCMPPD $0x04, Y5, Y6, Y6; \
	VANDPD YONE, Y6, Y6; \
	VADDPD Y6, Y3, Y3; \
	VMULPD REIGHTH, Y3, Y5; \
	VROUNDPD $3, Y5, Y5; \
	VMULPD REIGHT, Y5, Y5; \
	VSUBPD Y5, Y3, Y4; \
	VMULPD RPI4A, Y3, Y5; \
	VSUBPD Y5, Y2, Y6; \
	VMULPD RPI4B, Y3, Y5; \
	VSUBPD Y5, Y6, Y6; \
	VMULPD RPI4C, Y3, Y5; \
	VSUBPD Y5, Y6, Y6; \
	VCMPPD $0x1e, RTHREE, Y4, Y5; \
	VANDPD RFOUR, Y5, Y7; \
	VSUBPD Y7, Y4, Y4; \
	VANDPD RSIGN, Y5, Y7; \
	VXORPD Y7, Y1, Y1; \
	VCMPPD $0x1e, YONE, Y4, Y5; \
	VANDPD RSIGN, Y5, Y5; \
	VXORPD Y5, Y7, Y8; \
	VMULPD Y6, Y6, Y9; \
	VMULPD RSC0, Y9, Y10; \
	VADDPD RSC1, Y10, Y10; \
	VMULPD RSS0, Y9, Y11; \
	VADDPD RSS1, Y11, Y11; \
	VMULPD Y9, Y10, Y10; \
	VADDPD RSC2, Y10, Y10; \
	VMULPD Y9, Y11, Y11; \
	VADDPD RSS2, Y11, Y11; \
	VMULPD Y9, Y10, Y10; \
	VADDPD RSC3, Y10, Y10; \
	VMULPD Y9, Y11, Y11; \
	VADDPD RSS3, Y11, Y11; \
	VMULPD Y9, Y10, Y10; \
	VADDPD RSC4, Y10, Y10; \
	VMULPD Y9, Y11, Y11; \
	VADDPD RSS4, Y11, Y11; \
	VMULPD Y9, Y10, Y10; \
	VADDPD RSC5, Y10, Y10; \
	VMULPD Y9, Y11, Y11; \
	VADDPD RSS5, Y11, Y11; \
	VMULPD YHALF, Y9, Y12; \
	VMOVUPD YONE, Y13; \
	VSUBPD Y12, Y13, Y12; \
	VMULPD Y9, Y9, Y13; \
	VMULPD Y10, Y13, Y13; \
	VADDPD Y13, Y12, Y12; \
	VMULPD Y9, Y6, Y13; \
	VMULPD Y11, Y13, Y13; \
	VADDPD Y13, Y6, Y13; \
	VCMPPD $0x00, YONE, Y4, Y5; \
	VCMPPD $0x00, YTWO, Y4, Y7; \
	VORPD Y7, Y5, Y5; \
	VBLENDVPD Y5, Y12, Y13, Y10; \
	VBLENDVPD Y5, Y13, Y12, Y11; \
	VXORPD Y1, Y10, Y10; \
	VXORPD Y8, Y11, Y11; \
	VMULPD Y11, Y14, Y11; \
	VMOVUPD Y11, off(R11); \
	VMULPD Y10, Y15, Y10; \
	VMOVUPD Y10, off(R12)

// func rffExactAVX2(z *float64, d0 int, omegaT *float64, strideBytes int, phase *float64, scale float64, o, e *float64) bool
//
// RFFExact: the arguments of the block's two halves (products rounded, then
// added, k in order, from zero) plus the phases into e, then false if a
// lane has x = 0, |x| ≥ 2^29 or a NaN, else each half through RXHALF.
TEXT ·rffExactAVX2(SB), NOSPLIT, $0-65
	MOVQ z+0(FP), SI
	MOVQ d0+8(FP), R8
	MOVQ omegaT+16(FP), DI
	MOVQ strideBytes+24(FP), R9
	MOVQ phase+32(FP), R10
	MOVQ o+48(FP), R11
	MOVQ e+56(FP), R12
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1

rxk:
	VBROADCASTSD (SI), Y4
	VMULPD (DI), Y4, Y5
	VMULPD 32(DI), Y4, Y6
	VADDPD Y5, Y0, Y0
	VADDPD Y6, Y1, Y1
	ADDQ $8, SI
	ADDQ R9, DI
	DECQ R8
	JNE  rxk
	VADDPD (R10), Y0, Y0
	VADDPD 32(R10), Y1, Y1
	VMOVUPD Y0, (R12)
	VMOVUPD Y1, 32(R12)
	VXORPD Y7, Y7, Y7
	VANDPD YABS, Y0, Y2
	VCMPPD $0x1e, Y7, Y2, Y3
	VCMPPD $0x11, RSMAX, Y2, Y4
	VANDPD Y4, Y3, Y3
	VANDPD YABS, Y1, Y2
	VCMPPD $0x1e, Y7, Y2, Y5
	VCMPPD $0x11, RSMAX, Y2, Y4
	VANDPD Y4, Y5, Y5
	VANDPD Y5, Y3, Y3
	VMOVMSKPD Y3, AX
	CMPQ AX, $15
	JNE  rxbad
	VBROADCASTSD scale+40(FP), Y14
	VXORPD RSIGN, Y14, Y15
	RXHALF(0)
	RXHALF(32)
	MOVB $1, ret+64(FP)
	VZEROUPPER
	RET

rxbad:
	MOVB $0, ret+64(FP)
	VZEROUPPER
	RET

