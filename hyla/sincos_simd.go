//go:build goexperiment.simd && amd64

package hyla

import (
	"math"
	"simd/archsimd"
)

// The RFF map's AVX-512 kernels use a Taylor polynomial of sin δ, cos δ for
// |δ| ≤ 0.5 and fall back to the scalar code (a left-to-right dot product
// and math.Sincos per entry) for a block of eight samples with a larger
// argument: the common case when the frequencies are wide (RFF-SGC on text,
// s = 5, spends most of its map time there). vecSincosExact and
// rffExactBlock compute that fallback eight lanes at a time with exactly the
// operations of the scalar code, so the results are the scalar code's bit
// for bit (TestVecSincosExactMatchesMath, TestRFFExactBlockMatchesScalar)
// and no cached result moves. Nothing here is fused: a multiply and an add
// are two roundings, as in the scalar Go code compiled for GOAMD64 below
// v3. With amd64.v3 the compiler may fuse the scalar code's multiply-adds,
// so sincosExactOK is false there and the fallback stays scalar.
//
// The coefficients and the three-part π/4 are math.Sincos's (Cephes'
// sin.c); the reduction is its Cody–Waite branch, valid below 2^29.

var (
	sincosS = [6]float64{
		1.58962301576546568060e-10, // 0x3de5d8fd1fd19ccd
		-2.50507477628578072866e-8, // 0xbe5ae5e5a9291f5d
		2.75573136213857245213e-6,  // 0x3ec71de3567d48a1
		-1.98412698295895385996e-4, // 0xbf2a01a019bfdf03
		8.33333333332211858878e-3,  // 0x3f8111111110f7d0
		-1.66666666666666307295e-1, // 0xbfc5555555555548
	}
	sincosC = [6]float64{
		-1.13585365213876817300e-11, // 0xbda8fa49a0861a9b
		2.08757008419747316778e-9,   // 0x3e21ee9d7b4e3f05
		-2.75573141792967388112e-7,  // 0xbe927e4f7eac4bc6
		2.48015872888517045348e-5,   // 0x3efa01a019c844f5
		-1.38888888888730564116e-3,  // 0xbf56c16c16c14f91
		4.16666666666665929218e-2,   // 0x3fa555555555554b
	}
)

const (
	sincosPi4A = 7.85398125648498535156e-1  // 0x3fe921fb40000000, π/4 in three parts
	sincosPi4B = 3.77489470793079817668e-8  // 0x3e64442d00000000
	sincosPi4C = 2.69515142907905952645e-15 // 0x3ce8469898cc5170
	// sincosMax is math's reduceThreshold: from there on math.Sincos
	// reduces with Payne–Hanek, which this code does not.
	sincosMax = 1 << 29
)

// vecSincosRegular reports whether every lane of x is one vecSincosExact
// handles: 0 < |x| < 2^29 (so not NaN or ±Inf either).
func vecSincosRegular(x archsimd.Float64x8) bool {
	b := archsimd.BroadcastFloat64x8
	ax := x.Max(b(0).Sub(x))
	return ax.Greater(b(0)).And(ax.Less(b(sincosMax))).ToBits() == 0xff
}

// vecSincosExact returns math.Sincos of every lane of x, bit for bit, for
// lanes with 0 < |x| < 2^29 (vecSincosRegular).
func vecSincosExact(x archsimd.Float64x8) (sin, cos archsimd.Float64x8) {
	b := archsimd.BroadcastFloat64x8
	sign := archsimd.BroadcastUint64x8(1 << 63)
	xb := x.AsUint64x8()
	sinSign := xb.And(sign)
	cosSign := archsimd.BroadcastUint64x8(0)
	ax := xb.AndNot(sign).AsFloat64x8()

	// j = ⌊|x|·4/π⌋ as a float (exact: below 2^31); odd j moves up by one.
	y := ax.Mul(b(4 / math.Pi)).TruncScaled(0)
	half := y.Mul(b(0.5))
	y = y.Add(b(1).Masked(half.TruncScaled(0).NotEqual(half)))
	oct := y.Sub(y.Mul(b(0.125)).TruncScaled(0).Mul(b(8))) // j & 7
	z := ax.Sub(y.Mul(b(sincosPi4A))).Sub(y.Mul(b(sincosPi4B))).Sub(y.Mul(b(sincosPi4C)))

	flip := func(m archsimd.Mask64x8) archsimd.Uint64x8 { return sign.AsFloat64x8().Masked(m).AsUint64x8() }
	gt3 := oct.Greater(b(3))
	oct = oct.Sub(b(4).Masked(gt3))
	sinSign = sinSign.Xor(flip(gt3))
	cosSign = cosSign.Xor(flip(gt3))
	cosSign = cosSign.Xor(flip(oct.Greater(b(1))))

	zz := z.Mul(z)
	c := b(sincosC[0]).Mul(zz).Add(b(sincosC[1]))
	s := b(sincosS[0]).Mul(zz).Add(b(sincosS[1]))
	for k := 2; k < 6; k++ {
		c = c.Mul(zz).Add(b(sincosC[k]))
		s = s.Mul(zz).Add(b(sincosS[k]))
	}
	cos = b(1).Sub(b(0.5).Mul(zz)).Add(zz.Mul(zz).Mul(c))
	sin = z.Add(z.Mul(zz).Mul(s))

	swap := oct.Equal(b(1)).Or(oct.Equal(b(2)))
	sin, cos = cos.Merge(sin, swap), sin.Merge(cos, swap)
	return sin.AsUint64x8().Xor(sinSign).AsFloat64x8(), cos.AsUint64x8().Xor(cosSign).AsFloat64x8()
}

// rffExactBlock computes entries j … j+7 of one row of the RFF map exactly
// as RFFMap.forwardScalar does: arg = Σ_k z_k·Λ_kj summed left to right,
// o = √(2/d0)·cos(arg + b_j), e = −√(2/d0)·sin(arg + b_j). omegaT is Λ
// with row stride `stride`, phase the phases b (both with at least j+8
// columns). It reports false and writes nothing when a lane needs
// math.Sincos's special cases or this build cannot match it bit for bit.
func rffExactBlock(zi, omegaT []float64, stride, j int, phase []float64, scale float64, o, e []float64) bool {
	if !sincosExactOK {
		return false
	}
	arg := archsimd.BroadcastFloat64x8(0)
	for k, v := range zi {
		arg = arg.Add(archsimd.BroadcastFloat64x8(v).Mul(archsimd.LoadFloat64x8Slice(omegaT[k*stride+j:])))
	}
	x := arg.Add(archsimd.LoadFloat64x8Slice(phase[j:]))
	if !vecSincosRegular(x) {
		return false
	}
	sn, cs := vecSincosExact(x)
	archsimd.BroadcastFloat64x8(scale).Mul(cs).StoreSlice(o[j:])
	archsimd.BroadcastFloat64x8(-scale).Mul(sn).StoreSlice(e[j:])
	return true
}
