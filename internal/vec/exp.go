package vec

import "math"

// The exponential of the attention kernels. The models that used math.Exp
// (GAT's softmax) computed amd64's archExp, whose assembly takes one path
// with FMA and another without, and arm64's is a third algorithm: the same
// pipeline gave different bits on different machines. Exp is one
// definition, the arithmetic of amd64's FMA path (Shibata's method, as in
// SLEEF), written with math.FMA where that path fuses; so its bits are those
// math.Exp gave on every FMA-capable x86 machine (the artifacts cached
// before it existed stay valid) and they are now the same everywhere. The
// AVX-512 kernels compute it eight lanes at a time, on arguments in
// [expLo, expHi], where none of its special cases applies.

const (
	expLog2e    = 1.4426950408889634073599246810018920
	expLn2Hi    = 0.69314718055966295651160180568695068359375
	expLn2Lo    = 0.28235290563031577122588448175013436025525412068e-12
	expOverflow = 7.09782712893384e+02
	// expLo and expHi bound the arguments whose rounded exponent k keeps
	// k + 1023 in [2, 2046]: no overflow, no subnormal result.
	expLo = -708.0
	expHi = 708.0
)

// Exp returns e**x as amd64's math.Exp does on a CPU with FMA, bit for bit,
// on every machine: e**x for finite x in range, +Inf above about 709.78,
// 0 for −Inf and below about −745.13, x itself for NaN and +Inf.
func Exp(x float64) float64 {
	b := math.Float64bits(x)
	if b&^(1<<63) >= 0x7FF0000000000000 { // ±Inf or NaN
		if x < 0 {
			return 0
		}
		return x
	}
	if x > expOverflow {
		return math.Inf(1)
	}
	// k = round(x·log2 e) to nearest even, as CVTSD2SL does; a value
	// outside int32 is its "integer indefinite" (only x ≪ 0 gets there,
	// and underflows below).
	t := math.RoundToEven(float64(x * expLog2e))
	k := int64(math.MinInt32)
	if t >= math.MinInt32 && t <= math.MaxInt32 {
		k = int64(t)
	}
	kf := float64(k)
	r := math.FMA(-kf, expLn2Hi, x)
	r = math.FMA(-kf, expLn2Lo, r)
	r = float64(r * 0.0625)
	r = expPoly(r)
	return expScale(r, k)
}

// expPoly is e**(16r) − 1 for the reduced argument r: the Taylor
// polynomial of e**r − 1 by fused steps, then squared four times as
// (p + 2)·p.
func expPoly(r float64) float64 {
	p := math.FMA(2.4801587301587301587e-5, r, 1.9841269841269841270e-4)
	p = math.FMA(p, r, 1.3888888888888888889e-3)
	p = math.FMA(p, r, 8.3333333333333333333e-3)
	p = math.FMA(p, r, 4.1666666666666666667e-2)
	p = math.FMA(p, r, 1.6666666666666666667e-1)
	p = math.FMA(p, r, 0.5)
	p = math.FMA(p, r, 1.0)
	r = float64(r * p)
	r = float64(r * float64(r+2))
	r = float64(r * float64(r+2))
	r = float64(r * float64(r+2))
	return math.FMA(r, float64(r+2), 1) // the last step fused with the 1 of e**x = 1 + (e**x − 1)
}

// expScale is f·2**k as archExp's ldexp tail computes it: one product by
// a power of two, two for a subnormal result, 0 below it, +Inf above.
func expScale(f float64, k int64) float64 {
	e := k + 1023
	switch {
	case e <= 0:
		if e < -52 {
			return 0
		}
		f = float64(f * math.Float64frombits(uint64(e+1022)<<52))
		return float64(f * math.Float64frombits(1<<52))
	case e >= 0x7FF:
		return math.Inf(1)
	}
	return float64(f * math.Float64frombits(uint64(e)<<52))
}
