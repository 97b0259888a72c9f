package hyla

import (
	"github.com/hylaflow/hylaflow/internal/vec"
)

// The vector kernels of the HyLa and RFF maps (see docs/performance.md).
// Their loops live in internal/vec, which runs them as AVX-512 or AVX2+FMA
// assembly or as portable Go, whichever the CPU supports (HYLAFLOW_CPU forces
// a lower one), with identical bits on every path. These functions drive
// them row by row. They evaluate eight samples j at a time for one row z,
// on samples padded to a multiple of eight:
//
//   - q_j = ‖z − ω_j‖² from Ωᵀ (d0×D, so eight consecutive ω_j·k are one block);
//   - log P with the algorithm of the math package's Log (FreeBSD's e_log.c:
//     reduction to [1/√2, √2], s = f/(2+f), a degree-14 polynomial in s);
//   - P^{(d0−1)/2} by repeated squaring and one square root, as powHalf;
//   - cos(b_j + δ_j), sin(b_j + δ_j) with δ_j = λ'_j·log P from sin b_j,
//     cos b_j and Taylor polynomials of sin δ and cos δ (degree 15 and 16,
//     truncation error < 3e−20 for |δ| ≤ 0.5). A block with any |δ| > 0.5,
//     or with a P outside the normal range, is evaluated by the scalar code
//     (forwardScalar, the same Go on every path).
//
// The results agree with the scalar code to a few units in the last place
// and, like it, depend only on the inputs, never on the number of workers
// or on the CPU.

// hylaVecRow computes, for one row z (a = 1−‖z‖²), φ, ∂φ/∂h and ∂φ/∂h/q
// of all dp (padded) samples into phi, e1 and e2, in two passes: the
// distances q_j = ‖z − ω_j‖² into the row buffer q; then everything else,
// eight samples at a time. A block with a P outside the normal range or an
// |δ| > 0.5 is evaluated by the scalar code (its padded lanes set to zero).
func hylaVecRow(h *HyLaMap, q, phi, e1, e2 []float64, zi []float64, a float64) {
	v := h.vec
	dp := v.dp
	d0 := len(zi)
	q = q[:dp]
	vec.Dist(zi, v.omegaT[:d0*dp], dp, q)

	lam, sinB, cosB := v.lam[:dp], v.sinB[:dp], v.cosB[:dp]
	phi, e1, e2 = phi[:dp], e1[:dp], e2[:dp]
	nb := dp / 8
	for b := 0; b < nb; {
		n := vec.MathA(q[8*b:], lam[8*b:], phi[8*b:], e1[8*b:], e2[8*b:], a)
		if n > 0 {
			j, k := 8*b, 8*(b+n)
			vec.MathB(lam[j:k], sinB[j:k], cosB[j:k], phi[j:k], e1[j:k], e2[j:k], h.twoRho)
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

// hylaVecAxpy adds gy[c]·phi to row c of part (C×dp) for every class c.
func hylaVecAxpy(part []float64, dp int, gy, phi []float64) {
	vec.Axpy(part, dp, gy, phi[:dp])
}

// gzRows sets gz[k] = Σ_j c_j·Ωᵀ[k][j] (eight lane sums, then vec.Lanes8)
// for the d0 = len(gz) rows of Ωᵀ (d0×dp), eight rows at a time.
func gzRows(cbuf, omegaT []float64, dp int, gz []float64) {
	d0 := len(gz)
	var acc [64]float64
	k := 0
	for ; k+8 <= d0; k += 8 {
		vec.Gz8(cbuf, omegaT[k*dp:], dp, &acc)
		for r := 0; r < 8; r++ {
			gz[k+r] = vec.Lanes8((*[8]float64)(acc[8*r : 8*r+8]))
		}
	}
	for ; k < d0; k++ {
		vec.Dot1(cbuf, omegaT[k*dp:], (*[8]float64)(acc[0:8]))
		gz[k] = vec.Lanes8((*[8]float64)(acc[0:8]))
	}
}

// hylaVecGrad computes one row of the backward pass into gz (length d0)
// from e1 (or, if e1 is nil, u: U_c = Σ_j wpad[c·dp+j]·∂φ_j/∂h), e2 (of
// hylaVecRow) and the row's gradient: g (length dp,
// zero beyond D) if not nil, else g_j = Σ_c gy[c]·wpad[c·dp + j] (the
// gradient through a linear layer, so the m×D gradient is never stored).
// It first stores c_j = g_j·e2_j, then forms gz_k = Σ_j c_j·ω_jk as d0 dot
// products along Ωᵀ's rows.
func hylaVecGrad(h *HyLaMap, cbuf, g, gy, e1, e2, u, zi []float64, a float64, gz []float64) {
	v := h.vec
	dp := v.dp
	d0 := len(gz)
	if e1 == nil {
		e1 = e2 // s1 comes from u; the pass's s1 is not used
	}
	e1, e2, cbuf = e1[:dp], e2[:dp], cbuf[:dp]
	var s [16]float64
	if g != nil {
		// g_j = 1·g_j exactly.
		one := [1]float64{1}
		vec.GradPass(g[:dp], 0, one[:], e1, e2, cbuf, &s)
	} else {
		vec.GradPass(v.wpad, dp, gy, e1, e2, cbuf, &s)
	}
	gzRows(cbuf, v.omegaT[:d0*dp], dp, gz)
	s1 := vec.Lanes8((*[8]float64)(s[0:8]))
	if u != nil {
		// Σ_j g_j·∂φ_j/∂h = Σ_c gy_c·U_c.
		s1 = 0
		for c, y := range gy {
			s1 += float64(y * u[c])
		}
	}
	f := s1/a + vec.Lanes8((*[8]float64)(s[8:16]))
	for k := range gz {
		gz[k] = float64(2*gz[k]) - float64(float64(2*f)*zi[k])
	}
}

// rffForwardRow computes one row of the RFF map's Forward: o = φ(z) and
// e = −√(2/d0)·sin(⟨Λ_j, z⟩ + b_j), eight samples at a time (the arguments
// in two chains, vec.Args2), with cos/sin(b+δ) as in the HyLa kernel; the
// scalar code's operations (vec.RFFExact, eight lanes at a time, else
// forwardScalar) for a block with an |argument| > 0.5 and the scalar code
// for the last D mod 8 samples. The arguments go into o first (SinCosAdd reads a block before it
// writes it).
func rffForwardRow(r *RFFMap, zi, o, e []float64) {
	D := len(o)
	n := D / 8 * 8
	q := o[:n]
	vec.Args2(zi, r.omegaT, D, q)
	for j := 0; j < n; j += 8 {
		if !vec.SinCosAdd(q[j:j+8], r.sinB[j:j+8], r.cosB[j:j+8], r.scale, o[j:j+8], e[j:j+8]) &&
			!vec.RFFExact(zi, r.omegaT[j:], D, r.s.B[j:j+8], r.scale, o[j:j+8], e[j:j+8]) {
			r.forwardScalar(zi, o, e, j, j+8)
		}
	}
	if n < D {
		r.forwardScalar(zi, o, e, n, D)
	}
}

// rffVecRow computes one row of the RFF map on the padded samples of v:
// φ_j = √(2/d0)·cos(⟨Λ_j, z⟩ + b_j) into phi and −√(2/d0)·sin(⟨Λ_j, z⟩ + b_j)
// into e (length dp), the arguments first (into q), then eight samples at a
// time with the angle-addition formula (the scalar code's operations for a
// block with an |argument| > 0.5, vec.RFFExact or forwardScalar; padded
// samples zero there).
func rffVecRow(r *RFFMap, v *hylaVec, q, phi, e, zi []float64) {
	dp := v.dp
	d0 := len(zi)
	q, phi, e = q[:dp], phi[:dp], e[:dp]
	vec.Args(zi, v.omegaT[:d0*dp], dp, q)
	sinB, cosB := v.sinB[:dp], v.cosB[:dp]
	D := r.Features()
	for j := 0; j < dp; j += 8 {
		if !vec.SinCosAdd(q[j:j+8], sinB[j:j+8], cosB[j:j+8], r.scale, phi[j:j+8], e[j:j+8]) {
			end := min(j+8, D)
			if !vec.RFFExact(zi, v.omegaT[j:], dp, v.phase[j:j+8], r.scale, phi[j:j+8], e[j:j+8]) {
				r.forwardScalar(zi, phi, e, j, end)
			}
			clear(phi[end : j+8])
			clear(e[end : j+8])
		}
	}
}

// rffVecGrad sets gz (length d0) to the row's ∂L/∂z = Σ_j g_j·e_j·Λ_j with
// g_j = Σ_c gy[c]·wpad[c·dp+j] (through the linear layer).
func rffVecGrad(v *hylaVec, cbuf, gy, e []float64, gz []float64) {
	dp := v.dp
	d0 := len(gz)
	e, cbuf = e[:dp], cbuf[:dp]
	var s [16]float64
	vec.GradPass(v.wpad, dp, gy, e, e, cbuf, &s)
	gzRows(cbuf, v.omegaT[:d0*dp], dp, gz)
}
