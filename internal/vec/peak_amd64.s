#include "textflag.h"

// The machine's peak rates, for the floors in docs/performance.md
// (BenchmarkPeakFMA, BenchmarkPeakRead). Nothing else calls them.

// func fmaPeakAVX2(n int) float64
//
// n iterations of twelve independent 4-lane fused multiply-adds (more
// chains than the FMA latency times the issue rate, so throughput bounds
// it); returns a lane of the sum so the work is not dead.
TEXT ·fmaPeakAVX2(SB), NOSPLIT, $0-16
	MOVQ n+0(FP), CX
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
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	TESTQ CX, CX
	JEQ   fpdone

fploop:
	VFMADD231PD Y12, Y13, Y0
	VFMADD231PD Y12, Y13, Y1
	VFMADD231PD Y12, Y13, Y2
	VFMADD231PD Y12, Y13, Y3
	VFMADD231PD Y12, Y13, Y4
	VFMADD231PD Y12, Y13, Y5
	VFMADD231PD Y12, Y13, Y6
	VFMADD231PD Y12, Y13, Y7
	VFMADD231PD Y12, Y13, Y8
	VFMADD231PD Y12, Y13, Y9
	VFMADD231PD Y12, Y13, Y10
	VFMADD231PD Y12, Y13, Y11
	DECQ CX
	JNE  fploop

fpdone:
	VADDPD Y1, Y0, Y0
	VMOVSD X0, ret+8(FP)
	VZEROUPPER
	RET

// func readPeakAVX2(p *float64, nb int) float64
//
// Sums nb blocks of 32 float64 (256 bytes) into eight accumulators.
TEXT ·readPeakAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ nb+8(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	TESTQ CX, CX
	JEQ   rpdone

rploop:
	VADDPD (SI), Y0, Y0
	VADDPD 32(SI), Y1, Y1
	VADDPD 64(SI), Y2, Y2
	VADDPD 96(SI), Y3, Y3
	VADDPD 128(SI), Y4, Y4
	VADDPD 160(SI), Y5, Y5
	VADDPD 192(SI), Y6, Y6
	VADDPD 224(SI), Y7, Y7
	ADDQ $256, SI
	DECQ CX
	JNE  rploop

rpdone:
	VADDPD Y1, Y0, Y0
	VMOVSD X0, ret+16(FP)
	VZEROUPPER
	RET
