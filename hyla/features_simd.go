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
		// Two accumulators halve the chain of dependent multiply-adds.
		q := archsimd.BroadcastFloat64x8(0)
		q1 := q
		k := 0
		for ; k+2 <= d0; k += 2 {
			d := archsimd.BroadcastFloat64x8(zi[k]).Sub(archsimd.LoadFloat64x8Slice(omegaT[k*D+j:]))
			q = d.MulAdd(d, q)
			d1 := archsimd.BroadcastFloat64x8(zi[k+1]).Sub(archsimd.LoadFloat64x8Slice(omegaT[(k+1)*D+j:]))
			q1 = d1.MulAdd(d1, q1)
		}
		if k < d0 {
			d := archsimd.BroadcastFloat64x8(zi[k]).Sub(archsimd.LoadFloat64x8Slice(omegaT[k*D+j:]))
			q = d.MulAdd(d, q)
		}
		q = q.Add(q1)
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

// vecSum returns the sum of the eight lanes in a fixed order.
func vecSum(v archsimd.Float64x8) float64 {
	var t [8]float64
	v.Store(&t)
	return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]))
}

// hylaVecChunk is the number of samples whose coefficients
// c_j = g_j·e2_j one pass of hylaBackwardRowAVX512 keeps on the stack.
const hylaVecChunk = 1024

// hylaBackwardRowAVX512 computes one row of Backward into gz (length d0)
// from e1, e2 (length D) and the row's gradient: g if not nil, else
// g_j = Σ_c gy[c]·wT[c·D + j] (the gradient through a linear layer, so the
// m×D gradient matrix is never stored). For each chunk of samples it first
// stores c_j = g_j·e2_j, then forms gz_k = Σ_j c_j·ω_jk as d0 dot products
// along Ωᵀ's rows, with the accumulator in a register.
func hylaBackwardRowAVX512(h *HyLaMap, g, gy, wT, e1, e2, zi []float64, a float64, gz []float64) {
	D := len(e1)
	d0 := len(gz)
	clear(gz)
	var cbuf [hylaVecChunk]float64
	s1 := archsimd.BroadcastFloat64x8(0)
	s2 := archsimd.BroadcastFloat64x8(0)
	var ss1, ss2 float64
	omegaT := h.omegaT
	for j0 := 0; j0 < D; j0 += hylaVecChunk {
		j1 := min(j0+hylaVecChunk, D)
		vend := j0 + (j1-j0)/8*8
		j := j0
		for ; j < vend; j += 8 {
			var gv archsimd.Float64x8
			if g != nil {
				gv = archsimd.LoadFloat64x8Slice(g[j:])
			} else {
				gv = archsimd.BroadcastFloat64x8(0)
				for c, y := range gy {
					gv = archsimd.BroadcastFloat64x8(y).MulAdd(archsimd.LoadFloat64x8Slice(wT[c*D+j:]), gv)
				}
			}
			cv := gv.Mul(archsimd.LoadFloat64x8Slice(e2[j:]))
			cv.StoreSlice(cbuf[j-j0:])
			s1 = gv.MulAdd(archsimd.LoadFloat64x8Slice(e1[j:]), s1)
			s2 = s2.Add(cv)
		}
		for ; j < j1; j++ {
			var gj float64
			if g != nil {
				gj = g[j]
			} else {
				for c, y := range gy {
					gj += y * wT[c*D+j]
				}
			}
			cbuf[j-j0] = gj * e2[j]
			ss1 += gj * e1[j]
			ss2 += cbuf[j-j0]
		}
		// Four rows of Ωᵀ at a time: four independent accumulators share
		// each load of c.
		k := 0
		for ; k+4 <= d0; k += 4 {
			w0 := omegaT[k*D : (k+1)*D]
			w1 := omegaT[(k+1)*D : (k+2)*D]
			w2 := omegaT[(k+2)*D : (k+3)*D]
			w3 := omegaT[(k+3)*D : (k+4)*D]
			a0 := archsimd.BroadcastFloat64x8(0)
			a1, a2, a3 := a0, a0, a0
			j := j0
			for ; j < vend; j += 8 {
				cv := archsimd.LoadFloat64x8Slice(cbuf[j-j0:])
				a0 = cv.MulAdd(archsimd.LoadFloat64x8Slice(w0[j:]), a0)
				a1 = cv.MulAdd(archsimd.LoadFloat64x8Slice(w1[j:]), a1)
				a2 = cv.MulAdd(archsimd.LoadFloat64x8Slice(w2[j:]), a2)
				a3 = cv.MulAdd(archsimd.LoadFloat64x8Slice(w3[j:]), a3)
			}
			sums := [4]float64{vecSum(a0), vecSum(a1), vecSum(a2), vecSum(a3)}
			for ; j < j1; j++ {
				cj := cbuf[j-j0]
				sums[0] += cj * w0[j]
				sums[1] += cj * w1[j]
				sums[2] += cj * w2[j]
				sums[3] += cj * w3[j]
			}
			gz[k] += sums[0]
			gz[k+1] += sums[1]
			gz[k+2] += sums[2]
			gz[k+3] += sums[3]
		}
		for ; k < d0; k++ {
			w := omegaT[k*D : (k+1)*D]
			acc := archsimd.BroadcastFloat64x8(0)
			j := j0
			for ; j < vend; j += 8 {
				acc = archsimd.LoadFloat64x8Slice(cbuf[j-j0:]).MulAdd(archsimd.LoadFloat64x8Slice(w[j:]), acc)
			}
			sum := vecSum(acc)
			for ; j < j1; j++ {
				sum += cbuf[j-j0] * w[j]
			}
			gz[k] += sum
		}
	}
	ss1 += vecSum(s1)
	ss2 += vecSum(s2)
	f := ss1/a + ss2
	for k := range gz {
		gz[k] = 2*gz[k] - 2*f*zi[k]
	}
}

// rffForwardRowAVX512 computes one row of the RFF map's Forward: o = φ(z)
// and e = −√(2/d0)·sin(⟨Λ_j, z⟩ + b_j), eight samples at a time, with
// cos/sin(b+δ) as in the HyLa kernel (scalar fallback for |δ| > 0.5).
func rffForwardRowAVX512(r *RFFMap, zi, o, e []float64) {
	D := len(o)
	d0 := len(zi)
	lim := archsimd.BroadcastFloat64x8(0.5)
	scale := archsimd.BroadcastFloat64x8(r.scale)
	zero := archsimd.BroadcastFloat64x8(0)
	omegaT := r.omegaT
	j := 0
	for ; j+8 <= D; j += 8 {
		arg, arg1 := zero, zero
		k := 0
		for ; k+2 <= d0; k += 2 {
			arg = archsimd.BroadcastFloat64x8(zi[k]).MulAdd(archsimd.LoadFloat64x8Slice(omegaT[k*D+j:]), arg)
			arg1 = archsimd.BroadcastFloat64x8(zi[k+1]).MulAdd(archsimd.LoadFloat64x8Slice(omegaT[(k+1)*D+j:]), arg1)
		}
		if k < d0 {
			arg = archsimd.BroadcastFloat64x8(zi[k]).MulAdd(archsimd.LoadFloat64x8Slice(omegaT[k*D+j:]), arg)
		}
		arg = arg.Add(arg1)
		if arg.Max(zero.Sub(arg)).Greater(lim).Or(arg.IsNaN()).ToBits() != 0 {
			r.forwardScalar(zi, o, e, j, j+8)
			continue
		}
		sd, cd := vecSinCosSmall(arg)
		sb := archsimd.LoadFloat64x8Slice(r.sinB[j:])
		cb := archsimd.LoadFloat64x8Slice(r.cosB[j:])
		sn := sb.Mul(cd).Add(cb.Mul(sd))
		cs := cb.Mul(cd).Sub(sb.Mul(sd))
		scale.Mul(cs).StoreSlice(o[j:])
		zero.Sub(scale.Mul(sn)).StoreSlice(e[j:])
	}
	if j < D {
		r.forwardScalar(zi, o, e, j, D)
	}
}
