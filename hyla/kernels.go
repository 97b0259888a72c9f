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

// hylaVecDists sets the distances q_j = ‖z − ω_j‖² of the rows of z
// (rows×d0) into the rows of qb (dq apart, dq samples each: those past D
// repeat sample D−1), panel by panel of v.omegaP.
func hylaVecDists(v *hylaVec, z []float64, d0, rows int, qb []float64) {
	pw := v.pw
	for p := 0; p < v.dq/pw; p++ {
		panel := v.omegaP[p*d0*pw : (p+1)*d0*pw]
		for r := 0; r < rows; r++ {
			vec.Dist(z[r*d0:(r+1)*d0], panel, pw, qb[r*v.dq+p*pw:r*v.dq+(p+1)*pw])
		}
	}
}

// hylaVecRow computes, for one row z (a = 1−‖z‖²) with its distances
// q_j = ‖z − ω_j‖² (hylaVecDists), φ, ∂φ/∂h and ∂φ/∂h/q of all dp
// (padded) samples into phi, e1 and e2, eight samples at a time. A block
// with a P outside the normal range or an |δ| > 0.5 is evaluated by the
// scalar code (its padded lanes set to zero).
func hylaVecRow(h *HyLaMap, q, phi, e1, e2 []float64, zi []float64, a float64) {
	v := h.vec
	dp := v.dp
	q = q[:dp]

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

// hylaVecGradPass computes the first part of one row of the backward
// pass from e1 (or, if e1 is nil, u: U_c = Σ_j wpad[c·dp+j]·∂φ_j/∂h), e2
// (of hylaVecRow) and the row's gradient: g (length dp, zero beyond D) if
// not nil, else g_j = Σ_c gy[c]·wpad[c·dp + j] (the gradient through a
// linear layer, so the m×D gradient is never stored; u needs gy even when
// g is given). A g that vec.GyW formed from gy gives the bits of the
// pass that forms it: GradPass takes it as 1·g_j + 0, which is g_j, as a
// sum of fused products from +0 is never −0. It stores
// c_j = g_j·e2_j into cbuf and returns f = Σ_j g_j·∂φ_j/∂h / a + Σ_j c_j;
// hylaVecGz and hylaVecGradEnd complete the row.
func hylaVecGradPass(h *HyLaMap, cbuf, g, gy, e1, e2, u []float64, a float64) float64 {
	v := h.vec
	dp := v.dp
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
	s1 := vec.Lanes8((*[8]float64)(s[0:8]))
	if u != nil {
		// Σ_j g_j·∂φ_j/∂h = Σ_c gy_c·U_c.
		s1 = 0
		for c, y := range gy {
			s1 += float64(y * u[c])
		}
	}
	return s1/a + vec.Lanes8((*[8]float64)(s[8:16]))
}

// hylaVecGz sets gz_k = Σ_j c_j·Ωᵀ[k][j] (eight lane sums, then
// vec.Lanes8) for k < d0 and each of the rows of cb (rows×dp), into
// gz[r·stride+k]: the products of the rows of cb with the d0 rows of Ωᵀ,
// which hylaVecRowDots computes four rows of Ωᵀ at a time for all the
// rows (each strip read from L1 for all rows but the first). The lane
// sums are those of gzRows.
func hylaVecGz(cb, omegaT []float64, dp, d0, rows int, gz []float64, stride int) {
	hylaVecRowDots(cb, rows, dp, omegaT, d0, gz, stride)
}

// hylaVecRowDots sets out[r·ostride+k] = Σ_j x[r·dp+j]·w[k·dp+j] for the
// rows r of x (rows×dp) and the classes k < nc of w (nc×dp): the lane sums
// of vec.RowDots (vec.Dot4 for four classes, vec.Dot1 for the rest, then
// vec.Lanes8; dp is a multiple of eight, so there is no tail), four
// classes for all the rows, then the next four, so the four rows of w
// are read from L1 for all rows but the first.
func hylaVecRowDots(x []float64, rows, dp int, w []float64, nc int, out []float64, ostride int) {
	var acc [32]float64
	var acc16 [128]float64
	k := 0
	for ; k+4 <= nc; k += 4 {
		strip := w[k*dp : (k+4)*dp]
		r := 0
		// Four rows by four classes in registers (vec.Dots4x4: the lane
		// sums of Dot4, eight loads per sixteen multiply-adds), then the
		// rows left one at a time.
		for ; r+4 <= rows; r += 4 {
			xs := [4][]float64{x[r*dp : (r+1)*dp], x[(r+1)*dp : (r+2)*dp], x[(r+2)*dp : (r+3)*dp], x[(r+3)*dp : (r+4)*dp]}
			vec.Dots4x4(&xs, strip, dp, &acc16)
			for t := range 4 {
				o := out[(r+t)*ostride+k : (r+t)*ostride+k+4]
				for c := range o {
					o[c] = vec.Lanes8((*[8]float64)(acc16[8*(4*t+c) : 8*(4*t+c)+8]))
				}
			}
		}
		for ; r < rows; r++ {
			vec.Dot4(x[r*dp:(r+1)*dp], strip, dp, &acc)
			o := out[r*ostride+k : r*ostride+k+4]
			for t := range o {
				o[t] = vec.Lanes8((*[8]float64)(acc[8*t : 8*t+8]))
			}
		}
	}
	for ; k < nc; k++ {
		for r := 0; r < rows; r++ {
			vec.Dot1(x[r*dp:(r+1)*dp], w[k*dp:(k+1)*dp], (*[8]float64)(acc[0:8]))
			out[r*ostride+k] = vec.Lanes8((*[8]float64)(acc[0:8]))
		}
	}
}

// hylaVecAxpyRows adds gy[r·nc+k]·phi[r·dp:] to row k of part (nc×dp) for
// the rows r of phi (rows×dp) in order and every class k: vec.AxpyRows,
// which keeps four classes' entries of part in registers across the rows.
// Each entry of part takes the rows' fused multiply-adds in row order, as
// hylaVecAxpy row by row.
func hylaVecAxpyRows(part []float64, dp int, gy []float64, nc int, phi []float64, rows int) {
	vec.AxpyRows(part, dp, gy, nc, nc, phi, dp, dp, rows)
}

// hylaVecGradEnd completes one row of the backward pass:
// ∂L/∂z_k = 2·gz_k − 2f·z_k.
func hylaVecGradEnd(gz, zi []float64, f float64) {
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
// g_j = Σ_c gy[c]·wpad[c·dp+j] (through the linear layer), or g_j from g
// when it is not nil (vec.GyW's sums for the row; the same bits).
func rffVecGrad(v *hylaVec, cbuf, g, gy, e []float64, gz []float64) {
	dp := v.dp
	d0 := len(gz)
	e, cbuf = e[:dp], cbuf[:dp]
	var s [16]float64
	if g != nil {
		// vec.GyW's sums, taken as 1·g_j + 0 = g_j (hylaVecGradPass).
		one := [1]float64{1}
		vec.GradPass(g[:dp], 0, one[:], e, e, cbuf, &s)
	} else {
		vec.GradPass(v.wpad, dp, gy, e, e, cbuf, &s)
	}
	gzRows(cbuf, v.omegaT[:d0*dp], dp, gz)
}
