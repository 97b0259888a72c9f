#include "textflag.h"

// AVX2 kernels of CompressNonzeros and CountNonzeros (nonzeros_amd64.go
// declares them), four entries at a time; the caller does the last 0–3.
// Without VCOMPRESSPD, the non-zero lanes of a group are moved to its low
// lanes by VPERMD with a permutation looked up by the group's 4-bit mask
// of lanes x ≠ 0 (VMOVMSKPD of the comparison; a NaN is not equal to 0).

// nzPerm: for each mask m, the eight int32 lanes of VPERMD that move the
// float64 lanes set in m, in order, to the low lanes (the rest: lane 0).
DATA nzPerm<>+0(SB)/8, $0x0
DATA nzPerm<>+8(SB)/8, $0x0
DATA nzPerm<>+16(SB)/8, $0x0
DATA nzPerm<>+24(SB)/8, $0x0
DATA nzPerm<>+32(SB)/8, $0x100000000
DATA nzPerm<>+40(SB)/8, $0x0
DATA nzPerm<>+48(SB)/8, $0x0
DATA nzPerm<>+56(SB)/8, $0x0
DATA nzPerm<>+64(SB)/8, $0x300000002
DATA nzPerm<>+72(SB)/8, $0x0
DATA nzPerm<>+80(SB)/8, $0x0
DATA nzPerm<>+88(SB)/8, $0x0
DATA nzPerm<>+96(SB)/8, $0x100000000
DATA nzPerm<>+104(SB)/8, $0x300000002
DATA nzPerm<>+112(SB)/8, $0x0
DATA nzPerm<>+120(SB)/8, $0x0
DATA nzPerm<>+128(SB)/8, $0x500000004
DATA nzPerm<>+136(SB)/8, $0x0
DATA nzPerm<>+144(SB)/8, $0x0
DATA nzPerm<>+152(SB)/8, $0x0
DATA nzPerm<>+160(SB)/8, $0x100000000
DATA nzPerm<>+168(SB)/8, $0x500000004
DATA nzPerm<>+176(SB)/8, $0x0
DATA nzPerm<>+184(SB)/8, $0x0
DATA nzPerm<>+192(SB)/8, $0x300000002
DATA nzPerm<>+200(SB)/8, $0x500000004
DATA nzPerm<>+208(SB)/8, $0x0
DATA nzPerm<>+216(SB)/8, $0x0
DATA nzPerm<>+224(SB)/8, $0x100000000
DATA nzPerm<>+232(SB)/8, $0x300000002
DATA nzPerm<>+240(SB)/8, $0x500000004
DATA nzPerm<>+248(SB)/8, $0x0
DATA nzPerm<>+256(SB)/8, $0x700000006
DATA nzPerm<>+264(SB)/8, $0x0
DATA nzPerm<>+272(SB)/8, $0x0
DATA nzPerm<>+280(SB)/8, $0x0
DATA nzPerm<>+288(SB)/8, $0x100000000
DATA nzPerm<>+296(SB)/8, $0x700000006
DATA nzPerm<>+304(SB)/8, $0x0
DATA nzPerm<>+312(SB)/8, $0x0
DATA nzPerm<>+320(SB)/8, $0x300000002
DATA nzPerm<>+328(SB)/8, $0x700000006
DATA nzPerm<>+336(SB)/8, $0x0
DATA nzPerm<>+344(SB)/8, $0x0
DATA nzPerm<>+352(SB)/8, $0x100000000
DATA nzPerm<>+360(SB)/8, $0x300000002
DATA nzPerm<>+368(SB)/8, $0x700000006
DATA nzPerm<>+376(SB)/8, $0x0
DATA nzPerm<>+384(SB)/8, $0x500000004
DATA nzPerm<>+392(SB)/8, $0x700000006
DATA nzPerm<>+400(SB)/8, $0x0
DATA nzPerm<>+408(SB)/8, $0x0
DATA nzPerm<>+416(SB)/8, $0x100000000
DATA nzPerm<>+424(SB)/8, $0x500000004
DATA nzPerm<>+432(SB)/8, $0x700000006
DATA nzPerm<>+440(SB)/8, $0x0
DATA nzPerm<>+448(SB)/8, $0x300000002
DATA nzPerm<>+456(SB)/8, $0x500000004
DATA nzPerm<>+464(SB)/8, $0x700000006
DATA nzPerm<>+472(SB)/8, $0x0
DATA nzPerm<>+480(SB)/8, $0x100000000
DATA nzPerm<>+488(SB)/8, $0x300000002
DATA nzPerm<>+496(SB)/8, $0x500000004
DATA nzPerm<>+504(SB)/8, $0x700000006
GLOBL nzPerm<>(SB), RODATA|NOPTR, $512

// nzLanes: for each mask m, the int32 numbers of the lanes set in m, in
// order (the rest: 0).
DATA nzLanes<>+0(SB)/8, $0x0
DATA nzLanes<>+8(SB)/8, $0x0
DATA nzLanes<>+16(SB)/8, $0x0
DATA nzLanes<>+24(SB)/8, $0x0
DATA nzLanes<>+32(SB)/8, $0x1
DATA nzLanes<>+40(SB)/8, $0x0
DATA nzLanes<>+48(SB)/8, $0x100000000
DATA nzLanes<>+56(SB)/8, $0x0
DATA nzLanes<>+64(SB)/8, $0x2
DATA nzLanes<>+72(SB)/8, $0x0
DATA nzLanes<>+80(SB)/8, $0x200000000
DATA nzLanes<>+88(SB)/8, $0x0
DATA nzLanes<>+96(SB)/8, $0x200000001
DATA nzLanes<>+104(SB)/8, $0x0
DATA nzLanes<>+112(SB)/8, $0x100000000
DATA nzLanes<>+120(SB)/8, $0x2
DATA nzLanes<>+128(SB)/8, $0x3
DATA nzLanes<>+136(SB)/8, $0x0
DATA nzLanes<>+144(SB)/8, $0x300000000
DATA nzLanes<>+152(SB)/8, $0x0
DATA nzLanes<>+160(SB)/8, $0x300000001
DATA nzLanes<>+168(SB)/8, $0x0
DATA nzLanes<>+176(SB)/8, $0x100000000
DATA nzLanes<>+184(SB)/8, $0x3
DATA nzLanes<>+192(SB)/8, $0x300000002
DATA nzLanes<>+200(SB)/8, $0x0
DATA nzLanes<>+208(SB)/8, $0x200000000
DATA nzLanes<>+216(SB)/8, $0x3
DATA nzLanes<>+224(SB)/8, $0x200000001
DATA nzLanes<>+232(SB)/8, $0x3
DATA nzLanes<>+240(SB)/8, $0x100000000
DATA nzLanes<>+248(SB)/8, $0x300000002
GLOBL nzLanes<>(SB), RODATA|NOPTR, $256

// nzCount: for each mask m, the number of lanes set in m.
DATA nzCount<>+0(SB)/8, $0x302020102010100
DATA nzCount<>+8(SB)/8, $0x403030203020201
GLOBL nzCount<>(SB), RODATA|NOPTR, $16

// The int32 4 of every lane, the step of the lane numbers.
DATA nzFour<>+0(SB)/8, $0x0000000400000004
DATA nzFour<>+8(SB)/8, $0x0000000400000004
GLOBL nzFour<>(SB), RODATA|NOPTR, $16

// func compressNonzerosAVX2(x *float64, n int, idx *int32, val *float64) int
//
// CompressNonzeros on the n/4 whole groups of four of x (n ≥ 4): each
// group's non-zero lanes permuted to its low lanes and stored whole at the
// count so far (four values, four positions: idx and val take three
// entries past the count), the count advanced by the group's; it returns
// the count.
TEXT ·compressNonzerosAVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ idx+16(FP), DI
	MOVQ val+24(FP), DX
	SHRQ $2, CX
	XORQ R8, R8
	VXORPD Y0, Y0, Y0
	VPXOR X1, X1, X1 // the group's first position in every lane
	VMOVDQU nzFour<>(SB), X2
	LEAQ nzPerm<>(SB), R9
	LEAQ nzLanes<>(SB), R10
	LEAQ nzCount<>(SB), R11

cz4:
	VMOVUPD (SI), Y3
	VCMPPD $4, Y0, Y3, Y4
	VMOVMSKPD Y4, AX
	MOVQ AX, BX
	SHLQ $5, BX
	VMOVDQU (R9)(BX*1), Y5
	VPERMD Y3, Y5, Y6
	VMOVUPD Y6, (DX)(R8*8)
	SHRQ $1, BX
	VPADDD (R10)(BX*1), X1, X7
	VMOVDQU X7, (DI)(R8*4)
	MOVBQZX (R11)(AX*1), AX
	ADDQ AX, R8
	VPADDD X2, X1, X1
	ADDQ $32, SI
	DECQ CX
	JNZ  cz4

	MOVQ R8, ret+32(FP)
	VZEROUPPER
	RET
