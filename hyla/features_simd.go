//go:build goexperiment.simd && amd64

package hyla

import (
	"math"
	"simd/archsimd"
)

// The AVX-512 kernels of the HyLa map, built with GOEXPERIMENT=simd and used
// when the CPU has AVX-512 (see docs/performance.md). They evaluate eight
// samples j at a time for one row z:
//
//   - q_j = ‖z − ω_j‖² from Ωᵀ (d0×D, so eight consecutive ω_j·k are one load);
//   - log P with the algorithm of the math package's Log (FreeBSD's e_log.c:
//     reduction to [1/√2, √2], s = f/(2+f), a degree-14 polynomial in s);
//   - P^{(d0−1)/2} by repeated squaring and one square root, as powHalf;
//   - cos(b_j + δ_j), sin(b_j + δ_j) with δ_j = λ'_j·log P from sin b_j,
//     cos b_j and Taylor polynomials of sin δ and cos δ (degree 15 and 16,
//     truncation error < 3e−20 for |δ| ≤ 0.5). A block with any |δ| > 0.5,
//     or with a P outside the normal range, is evaluated by the scalar code.
//
// The results agree with the scalar path to a few units in the last place
// (fused multiply-adds, the angle-addition formula; TestHyLaSIMDMatchesScalar)
// and, like it, depend only on the inputs, never on the number of workers.

// hylaVecOK reports whether the AVX-512 kernels run on this CPU.
var hylaVecOK = archsimd.X86.AVX512()

const (
	vecLn2Hi = 6.93147180369123816490e-01
	vecLn2Lo = 1.90821492927058770002e-10
	vecLg1   = 6.666666666666735130e-01
	vecLg2   = 3.999999999940941908e-01
	vecLg3   = 2.857142874366239149e-01
	vecLg4   = 2.222219843214978396e-01
	vecLg5   = 1.818357216161805012e-01
	vecLg6   = 1.531383769920937332e-01
	vecLg7   = 1.479819860511658591e-01
)

// vecLog returns log x for eight positive normal x.
func vecLog(x archsimd.Float64x8) archsimd.Float64x8 {
	one := archsimd.BroadcastFloat64x8(1)
	bits := x.AsUint64x8()
	e := bits.ShiftAllRight(52).AsInt64x8().Sub(archsimd.BroadcastInt64x8(1023)).ConvertToFloat64()
	m := bits.And(archsimd.BroadcastUint64x8(1<<52 - 1)).Or(archsimd.BroadcastUint64x8(1023 << 52)).AsFloat64x8()
	big := m.Greater(archsimd.BroadcastFloat64x8(math.Sqrt2))
	half := archsimd.BroadcastFloat64x8(0.5)
	m = m.Mul(half).Merge(m, big)
	e = e.Add(one).Merge(e, big)
	f := m.Sub(one)
	s := f.Div(f.Add(archsimd.BroadcastFloat64x8(2)))
	s2 := s.Mul(s)
	s4 := s2.Mul(s2)
	b := archsimd.BroadcastFloat64x8
	t1 := s2.Mul(b(vecLg1).Add(s4.Mul(b(vecLg3).Add(s4.Mul(b(vecLg5).Add(s4.Mul(b(vecLg7))))))))
	t2 := s4.Mul(b(vecLg2).Add(s4.Mul(b(vecLg4).Add(s4.Mul(b(vecLg6))))))
	r := t1.Add(t2)
	hfsq := half.Mul(f).Mul(f)
	// k*Ln2Hi - ((hfsq - (s*(hfsq+R) + k*Ln2Lo)) - f)
	inner := hfsq.Sub(s.Mul(hfsq.Add(r)).Add(e.Mul(b(vecLn2Lo)))).Sub(f)
	return e.Mul(b(vecLn2Hi)).Sub(inner)
}

// vecPowHalf returns p^(k/2) for k ≥ 0.
func vecPowHalf(p archsimd.Float64x8, k int) archsimd.Float64x8 {
	r := archsimd.BroadcastFloat64x8(1)
	if k&1 == 1 {
		r = p.Sqrt()
	}
	base := p
	for e := k >> 1; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = r.Mul(base)
		}
		base = base.Mul(base)
	}
	return r
}

// vecSinCosSmall returns sin δ and cos δ for |δ| ≤ 0.5.
func vecSinCosSmall(d archsimd.Float64x8) (sin, cos archsimd.Float64x8) {
	b := archsimd.BroadcastFloat64x8
	d2 := d.Mul(d)
	s := b(-1.0 / 1307674368000)
	s = d2.MulAdd(s, b(1.0/6227020800))
	s = d2.MulAdd(s, b(-1.0/39916800))
	s = d2.MulAdd(s, b(1.0/362880))
	s = d2.MulAdd(s, b(-1.0/5040))
	s = d2.MulAdd(s, b(1.0/120))
	s = d2.MulAdd(s, b(-1.0/6))
	s = d2.Mul(s).Mul(d).Add(d)
	c := b(1.0 / 20922789888000)
	c = d2.MulAdd(c, b(-1.0/87178291200))
	c = d2.MulAdd(c, b(1.0/479001600))
	c = d2.MulAdd(c, b(-1.0/3628800))
	c = d2.MulAdd(c, b(1.0/40320))
	c = d2.MulAdd(c, b(-1.0/720))
	c = d2.MulAdd(c, b(1.0/24))
	c = d2.MulAdd(c, b(-0.5))
	c = d2.MulAdd(c, b(1))
	return s, c
}

// hylaForwardRowAVX512 computes one row of Forward: o = φ(z), e1 = ∂φ/∂h,
// e2 = e1/q, all of length D.
func hylaForwardRowAVX512(h *HyLaMap, zi []float64, a float64, o, e1, e2 []float64) {
	D := len(o)
	d0 := len(zi)
	rho := float64(h.twoRho) / 2
	aV := archsimd.BroadcastFloat64x8(a)
	one := archsimd.BroadcastFloat64x8(1)
	rhoV := archsimd.BroadcastFloat64x8(rho)
	lim := archsimd.BroadcastFloat64x8(0.5)
	lo := archsimd.BroadcastFloat64x8(0x1p-1000)
	hi := archsimd.BroadcastFloat64x8(0x1p1000)
	omegaT := h.omegaT
	j := 0
	for ; j+8 <= D; j += 8 {
		q := archsimd.BroadcastFloat64x8(0)
		for k := 0; k < d0; k++ {
			d := archsimd.BroadcastFloat64x8(zi[k]).Sub(archsimd.LoadFloat64x8Slice(omegaT[k*D+j:]))
			q = d.MulAdd(d, q)
		}
		invq := one.Div(q)
		p := aV.Mul(invq)
		if p.Less(lo).Or(p.Greater(hi)).Or(p.IsNaN()).ToBits() != 0 {
			h.forwardScalar(zi, a, o, e1, e2, j, j+8)
			continue
		}
		lg := vecLog(p)
		lam := archsimd.LoadFloat64x8Slice(h.lam[j:])
		delta := lam.Mul(lg)
		if delta.Max(archsimd.BroadcastFloat64x8(0).Sub(delta)).Greater(lim).ToBits() != 0 {
			h.forwardScalar(zi, a, o, e1, e2, j, j+8)
			continue
		}
		mag := vecPowHalf(p, h.twoRho)
		sd, cd := vecSinCosSmall(delta)
		sb := archsimd.LoadFloat64x8Slice(h.sinB[j:])
		cb := archsimd.LoadFloat64x8Slice(h.cosB[j:])
		sn := sb.Mul(cd).Add(cb.Mul(sd))
		cs := cb.Mul(cd).Sub(sb.Mul(sd))
		mag.Mul(cs).StoreSlice(o[j:])
		dv := mag.Mul(rhoV.Mul(cs).Sub(lam.Mul(sn)))
		dv.StoreSlice(e1[j:])
		dv.Mul(invq).StoreSlice(e2[j:])
	}
	if j < D {
		h.forwardScalar(zi, a, o, e1, e2, j, D)
	}
}

// hylaBackwardRowAVX512 computes one row of Backward into gz (length d0)
// from the row's gradient g and e1, e2 (length D). acc holds d0·8 floats.
func hylaBackwardRowAVX512(h *HyLaMap, g, e1, e2, zi []float64, a float64, gz, acc []float64) {
	D := len(g)
	d0 := len(gz)
	clear(acc)
	s1 := archsimd.BroadcastFloat64x8(0)
	s2 := archsimd.BroadcastFloat64x8(0)
	omegaT := h.omegaT
	j := 0
	for ; j+8 <= D; j += 8 {
		gv := archsimd.LoadFloat64x8Slice(g[j:])
		c := gv.Mul(archsimd.LoadFloat64x8Slice(e2[j:]))
		s1 = gv.MulAdd(archsimd.LoadFloat64x8Slice(e1[j:]), s1)
		s2 = s2.Add(c)
		for k := 0; k < d0; k++ {
			ak := archsimd.LoadFloat64x8Slice(acc[k*8:])
			c.MulAdd(archsimd.LoadFloat64x8Slice(omegaT[k*D+j:]), ak).StoreSlice(acc[k*8:])
		}
	}
	var t [8]float64
	s1.Store(&t)
	ss1 := ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]))
	s2.Store(&t)
	ss2 := ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]))
	for k := 0; k < d0; k++ {
		v := acc[k*8 : k*8+8]
		gz[k] = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]))
	}
	for ; j < D; j++ {
		gj := g[j]
		ss1 += gj * e1[j]
		c := gj * e2[j]
		ss2 += c
		for k := range gz {
			gz[k] += c * omegaT[k*D+j]
		}
	}
	f := ss1/a + ss2
	for k := range gz {
		gz[k] = 2*gz[k] - 2*f*zi[k]
	}
}
