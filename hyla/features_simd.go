//go:build goexperiment.simd && amd64

package hyla

import "simd/archsimd"

// The AVX-512 kernels of the HyLa map, built with GOEXPERIMENT=simd and used
// when the CPU has AVX-512 (see docs/performance.md). Their loops are Go
// assembly (features_amd64.s; the Go compiler kept loop counters on the
// stack and re-checked bounds per load in archsimd loops), driven row by
// row from here. They evaluate eight samples j at a time for one row z, on
// samples padded to a multiple of eight:
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
// The transcendental pass's assembly is checked bit for bit against its Go
// reference (TestHyLaMathAssemblyMatchesGo).

// hylaVecOK reports whether the AVX-512 kernels run on this CPU.
var hylaVecOK = archsimd.X86.AVX512()

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

// hylaVecRow computes, for one row z (a = 1−‖z‖²), φ, ∂φ/∂h and ∂φ/∂h/q
// of all dp (padded) samples into phi, e1 and e2, in two passes: the
// distances q_j = ‖z − ω_j‖² into the row buffer q, four blocks of eight samples at a time (four independent sums, one
// broadcast of z_k per four loads); then everything else, eight samples at
// a time. A block with a P outside the normal range or an |δ| > 0.5 is
// evaluated by the scalar code (its padded lanes set to zero).
func hylaVecRow(h *HyLaMap, q, phi, e1, e2 []float64, zi []float64, a float64) {
	v := h.vec
	dp := v.dp
	d0 := len(zi)
	omegaT := v.omegaT[:d0*dp]
	q = q[:dp]
	hylaDistAVX512(&zi[0], d0, &omegaT[0], dp*8, &q[0], dp/8)

	lam, sinB, cosB := v.lam[:dp], v.sinB[:dp], v.cosB[:dp]
	phi, e1, e2 = phi[:dp], e1[:dp], e2[:dp]
	nb := dp / 8
	for b := 0; b < nb; {
		n := hylaMathAAVX512(&q[8*b], &lam[8*b], &phi[8*b], &e1[8*b], &e2[8*b], nb-b, a)
		if n > 0 {
			hylaMathBAVX512(&lam[8*b], &sinB[8*b], &cosB[8*b], &phi[8*b], &e1[8*b], &e2[8*b], n, h.twoRho)
		}
		b += n
		if b < nb {
			hylaVecScalarBlock(h, phi, e1, e2, zi, a, 8*b)
			b++
		}
	}
}

// hylaVecScalarBlock evaluates samples [j, j+8) of a row with the scalar
// code; padded samples get zeros.
func hylaVecScalarBlock(h *HyLaMap, phi, e1, e2 []float64, zi []float64, a float64, j int) {
	D := h.Features()
	end := min(j+8, D)
	h.forwardScalar(zi, a, phi, e1, e2, j, end)
	clear(phi[end : j+8])
	clear(e1[end : j+8])
	clear(e2[end : j+8])
}

// hylaVecDots sets y[c] = Σ_j w[c·dp+j]·phi[j] for c < len(y): each sum in
// one eight-lane accumulator over the blocks of eight, then over the lanes
// in a fixed order; four classes at a time share each load of phi.
func hylaVecDots(phi, w []float64, dp int, y []float64) {
	nb := dp / 8
	_ = phi[dp-1]
	_ = w[len(y)*dp-1]
	var acc [32]float64
	c := 0
	for ; c < len(y) && len(y) >= 4; c += 4 {
		// The last group of four ends at the last class (overlapping the
		// one before it, whose sums it recomputes to the same bits).
		c = min(c, len(y)-4)
		hylaDot4AVX512(&phi[0], &w[c*dp], dp*8, nb, &acc)
		y[c] = lanes8((*[8]float64)(acc[0:8]))
		y[c+1] = lanes8((*[8]float64)(acc[8:16]))
		y[c+2] = lanes8((*[8]float64)(acc[16:24]))
		y[c+3] = lanes8((*[8]float64)(acc[24:32]))
	}
	for ; c < len(y); c++ {
		hylaDot1AVX512(&phi[0], &w[c*dp], nb, (*[8]float64)(acc[0:8]))
		y[c] = lanes8((*[8]float64)(acc[0:8]))
	}
}

// hylaVecAxpy adds gy[c]·phi to row c of part (C×dp) for every class c.
func hylaVecAxpy(part []float64, dp int, gy, phi []float64) {
	if len(gy) == 0 {
		return
	}
	_ = phi[dp-1]
	_ = part[len(gy)*dp-1]
	hylaAxpyAVX512(&part[0], dp*8, &gy[0], len(gy), &phi[0], dp/8)
}

// lanes8 returns the sum of eight lanes in a fixed order (that of vecSum).
func lanes8(t *[8]float64) float64 {
	return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]))
}

//go:noescape
func hylaDistAVX512(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int)

//go:noescape
func hylaGradPassAVX512(w *float64, strideBytes int, gy *float64, nc int, e1, e2, c *float64, nb int, s *[16]float64)

//go:noescape
func hylaGz8AVX512(c, omegaT *float64, strideBytes, nb int, out *[64]float64)

//go:noescape
func hylaDot1AVX512(x, y *float64, nb int, out *[8]float64)

//go:noescape
func hylaDot4AVX512(x, y *float64, strideBytes, nb int, out *[32]float64)

//go:noescape
func hylaMathAAVX512(q, lam, phi, e1, e2 *float64, nb int, a float64) int

//go:noescape
func hylaMathBAVX512(lam, sinB, cosB, phi, e1, e2 *float64, nb int, twoRho int)

//go:noescape
func hylaAxpyAVX512(part *float64, strideBytes int, gy *float64, nc int, phi *float64, nb int)

// vecSum returns the sum of the eight lanes in a fixed order.
func vecSum(v archsimd.Float64x8) float64 {
	var t [8]float64
	v.Store(&t)
	return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]))
}

// hylaVecGrad computes one row of the backward pass into gz (length d0)
// from e1 (or, if e1 is nil, u: U_c = Σ_j wpad[c·dp+j]·∂φ_j/∂h), e2 (of
// hylaVecRow) and the row's gradient: g (length dp,
// zero beyond D) if not nil, else g_j = Σ_c gy[c]·wpad[c·dp + j] (the
// gradient through a linear layer, so the m×D gradient is never stored).
// It first stores c_j = g_j·e2_j, then forms gz_k = Σ_j c_j·ω_jk as d0 dot
// products along Ωᵀ's rows, with the accumulators in registers.
func hylaVecGrad(h *HyLaMap, cbuf, g, gy, e1, e2, u, zi []float64, a float64, gz []float64) {
	v := h.vec
	dp := v.dp
	nb := dp / 8
	d0 := len(gz)
	if e1 == nil {
		e1 = e2 // s1 comes from u; the pass's s1 is not used
	}
	e1, e2, cbuf = e1[:dp], e2[:dp], cbuf[:dp]
	var s [16]float64
	if g != nil {
		// g_j = 1·g_j exactly.
		_ = g[dp-1]
		one := [1]float64{1}
		hylaGradPassAVX512(&g[0], 0, &one[0], 1, &e1[0], &e2[0], &cbuf[0], nb, &s)
	} else {
		_ = v.wpad[len(gy)*dp-1]
		hylaGradPassAVX512(&v.wpad[0], dp*8, &gy[0], len(gy), &e1[0], &e2[0], &cbuf[0], nb, &s)
	}
	omegaT := v.omegaT[:d0*dp]
	var acc [64]float64
	k := 0
	for ; k+8 <= d0; k += 8 {
		hylaGz8AVX512(&cbuf[0], &omegaT[k*dp], dp*8, nb, &acc)
		for r := 0; r < 8; r++ {
			gz[k+r] = lanes8((*[8]float64)(acc[8*r : 8*r+8]))
		}
	}
	for ; k < d0; k++ {
		hylaDot1AVX512(&cbuf[0], &omegaT[k*dp], nb, (*[8]float64)(acc[0:8]))
		gz[k] = lanes8((*[8]float64)(acc[0:8]))
	}
	s1 := lanes8((*[8]float64)(s[0:8]))
	if u != nil {
		// Σ_j g_j·∂φ_j/∂h = Σ_c gy_c·U_c.
		s1 = 0
		for c, y := range gy {
			s1 += y * u[c]
		}
	}
	f := s1/a + lanes8((*[8]float64)(s[8:16]))
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
			if !rffExactBlock(zi, omegaT, D, j, r.s.B, r.scale, o, e) {
				r.forwardScalar(zi, o, e, j, j+8)
			}
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

//go:noescape
func rffArgsAVX512(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int)

// rffVecRow computes one row of the RFF map on the padded samples of v:
// φ_j = √(2/d0)·cos(⟨Λ_j, z⟩ + b_j) into phi and −√(2/d0)·sin(⟨Λ_j, z⟩ + b_j)
// into e (length dp), the arguments first (into q), then eight samples at a
// time with the angle-addition formula (scalar code for a block with an
// |argument| > 0.5; padded samples zero there).
func rffVecRow(r *RFFMap, v *hylaVec, q, phi, e, zi []float64) {
	dp := v.dp
	d0 := len(zi)
	omegaT := v.omegaT[:d0*dp]
	q, phi, e = q[:dp], phi[:dp], e[:dp]
	rffArgsAVX512(&zi[0], d0, &omegaT[0], dp*8, &q[0], dp/8)
	lim := archsimd.BroadcastFloat64x8(0.5)
	scale := archsimd.BroadcastFloat64x8(r.scale)
	zero := archsimd.BroadcastFloat64x8(0)
	sinB, cosB := v.sinB[:dp], v.cosB[:dp]
	D := r.Features()
	for j := 0; j < dp; j += 8 {
		arg := archsimd.LoadFloat64x8((*[8]float64)(q[j : j+8]))
		if arg.Max(zero.Sub(arg)).Greater(lim).Or(arg.IsNaN()).ToBits() != 0 {
			end := min(j+8, D)
			if !rffExactBlock(zi, omegaT, dp, j, v.phase, r.scale, phi, e) {
				r.forwardScalar(zi, phi, e, j, end)
			}
			clear(phi[end : j+8])
			clear(e[end : j+8])
			continue
		}
		sd, cd := vecSinCosSmall(arg)
		sb := archsimd.LoadFloat64x8((*[8]float64)(sinB[j : j+8]))
		cb := archsimd.LoadFloat64x8((*[8]float64)(cosB[j : j+8]))
		sn := sb.Mul(cd).Add(cb.Mul(sd))
		cs := cb.Mul(cd).Sub(sb.Mul(sd))
		scale.Mul(cs).Store((*[8]float64)(phi[j : j+8]))
		zero.Sub(scale.Mul(sn)).Store((*[8]float64)(e[j : j+8]))
	}
}

// rffVecGrad sets gz (length d0) to the row's ∂L/∂z = Σ_j g_j·e_j·Λ_j with
// g_j = Σ_c gy[c]·wpad[c·dp+j] (through the linear layer).
func rffVecGrad(v *hylaVec, cbuf, gy, e []float64, gz []float64) {
	dp := v.dp
	nb := dp / 8
	d0 := len(gz)
	e, cbuf = e[:dp], cbuf[:dp]
	_ = v.wpad[len(gy)*dp-1]
	var s [16]float64
	hylaGradPassAVX512(&v.wpad[0], dp*8, &gy[0], len(gy), &e[0], &e[0], &cbuf[0], nb, &s)
	omegaT := v.omegaT[:d0*dp]
	var acc [64]float64
	k := 0
	for ; k+8 <= d0; k += 8 {
		hylaGz8AVX512(&cbuf[0], &omegaT[k*dp], dp*8, nb, &acc)
		for t := 0; t < 8; t++ {
			gz[k+t] = lanes8((*[8]float64)(acc[8*t : 8*t+8]))
		}
	}
	for ; k < d0; k++ {
		hylaDot1AVX512(&cbuf[0], &omegaT[k*dp], nb, (*[8]float64)(acc[0:8]))
		gz[k] = lanes8((*[8]float64)(acc[0:8]))
	}
}
