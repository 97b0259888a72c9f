package hyla

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// Implementation notes (both maps).
//
// The maps are elementwise in the m×D output: entry (i, j) needs row i of Z
// and sample j only. Forward and Backward therefore loop over rows and, per
// row, over the D samples with the d0-long inner products written out; no
// gonum matrix product is used. That keeps the work in one pass over the
// output, lets the maps run on a fixed number of workers over contiguous row
// blocks, and makes the result bit-identical for every worker count (each
// entry and each row sum is computed by one goroutine in a fixed order).
// A BLAS product Z·Ωᵀ would add a second pass over m×D memory and, through
// gonum's own goroutines, fight the worker pool; with d0 = 16 it saves
// nothing.
//
// HyLa shares one logarithm per entry between the amplitude and the angle:
// with P = (1−‖z‖²)/‖z−ω‖² (the 2-D Poisson kernel ratio), ⟨ω,z⟩_H = log P
// and the amplitude exp((n−1)/2·⟨ω,z⟩_H) = P^{(n−1)/2} is an integer power
// times at most one square root, so no exp is evaluated. Forward keeps
// ∂φ/∂h and ∂φ/∂h/‖z−ω‖² for Backward, so Backward costs a few
// multiply-adds per entry and no transcendental function.

// minParallelEntries is the output size below which the maps run serially.
const minParallelEntries = 1 << 14

// rowSerial reports whether rowParallel would call fn(0, rows) on the
// calling goroutine; callers then call their row function directly, so no
// closure is allocated.
func rowSerial(rows, cols, workers int) bool {
	return min(workers, rows) <= 1 || rows*cols < minParallelEntries
}

// rowParallel runs fn(lo, hi) over [0, rows) split into at most workers
// contiguous blocks.
func rowParallel(rows, cols, workers int, fn func(lo, hi int)) {
	if workers < 1 {
		workers = 1
	}
	if workers > rows {
		workers = rows
	}
	if workers <= 1 || rows*cols < minParallelEntries {
		fn(0, rows)
		return
	}
	parallel.Blocks(context.Background(), rows, parallel.Size(rows, workers), workers, func(_, lo, hi int) { fn(lo, hi) })
}

func checkDims(what string, m *mat.Dense, rows, cols int) {
	if r, c := m.Dims(); r != rows || c != cols {
		panic(fmt.Sprintf("hyla: %s is %d×%d, want %d×%d", what, r, c, rows, cols))
	}
}

// grow returns buf resliced to n, reallocating only when its capacity is short.
func grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
}

// HyLaMap is the HyLa feature map φ_j(z) = exp(ρ·h_j)·cos(λ'_j·h_j + b_j)
// with h_j = ⟨ω_j, z⟩_H, ρ = (d0−1)/2 and λ'_j = λ_j/2 (ConventionCode) or
// λ_j (ConventionPaper). Like the official code it has no 1/√D factor.
// Points must lie in the open ball (use ProjectRows).
type HyLaMap struct {
	s    *Samples
	conv Convention
	lam  []float64 // effective frequencies λ'
	// vec holds the tables and scratch of the vector kernels (kernels.go,
	// internal/vec on every CPU path); nil when d0 > hylaVecMaxDim, where
	// the scalar code runs.
	vec     *hylaVec
	twoRho  int // d0−1
	workers int

	rows int
	z    []float64 // copy of the last Z (rows×d0)
	a    []float64 // 1−‖z_i‖² per row
	// Scalar code only (the vector kernels recompute them from z):
	e1 []float64 // ∂φ/∂h, rows×D
	e2 []float64 // ∂φ/∂h / ‖z−ω‖², rows×D
}

// NewHyLaMap returns the HyLa feature map of HyLa samples s (Kind "hyla")
// under the given λ convention ("" means ConventionCode). It uses
// runtime.GOMAXPROCS(0) workers until SetWorkers says otherwise.
func NewHyLaMap(s *Samples, conv Convention) FeatureMap {
	m, err := NewHyLa(s, conv)
	if err != nil {
		panic(err)
	}
	return m
}

// NewHyLa is NewHyLaMap returning the concrete type and an error for
// inconsistent samples or an unknown convention.
func NewHyLa(s *Samples, conv Convention) (*HyLaMap, error) {
	if s == nil || s.Omega == nil {
		return nil, fmt.Errorf("hyla: HyLa map: no samples")
	}
	if s.Kind != "" && s.Kind != "hyla" {
		return nil, fmt.Errorf("hyla: HyLa map: samples are of kind %q, want \"hyla\"", s.Kind)
	}
	d := s.Features()
	if len(s.Lambda) != d || len(s.B) != d {
		return nil, fmt.Errorf("hyla: HyLa map: %d boundary points but %d λ and %d b", d, len(s.Lambda), len(s.B))
	}
	if s.Dim() < 1 {
		return nil, fmt.Errorf("hyla: HyLa map: dimension %d", s.Dim())
	}
	var f float64
	switch conv {
	case ConventionCode, "":
		conv, f = ConventionCode, 0.5
	case ConventionPaper:
		f = 1
	default:
		return nil, fmt.Errorf("hyla: unknown λ convention %q (want %q or %q)", conv, ConventionCode, ConventionPaper)
	}
	lam := make([]float64, d)
	for j, l := range s.Lambda {
		lam[j] = f * l
	}
	h := &HyLaMap{s: s, conv: conv, lam: lam, twoRho: s.Dim() - 1, workers: runtime.GOMAXPROCS(0)}
	if s.Dim() <= hylaVecMaxDim {
		h.vec = newHylaVec(s, lam)
	}
	return h, nil
}

// Dim returns d0.
func (h *HyLaMap) Dim() int { return h.s.Dim() }

// Features returns D.
func (h *HyLaMap) Features() int { return h.s.Features() }

// SetWorkers sets the number of goroutines Forward and Backward use (≥ 1).
// The results do not depend on it.
func (h *HyLaMap) SetWorkers(n int) { h.workers = max(n, 1) }

// Convention returns the λ convention in use.
func (h *HyLaMap) Convention() Convention { return h.conv }

// powHalf returns p^(k/2) for k ≥ 0 by repeated squaring and one square root.
func powHalf(p float64, k int) float64 {
	r := 1.0
	if k&1 == 1 {
		r = math.Sqrt(p)
	}
	base := p
	for e := k >> 1; e > 0; e >>= 1 {
		if e&1 == 1 {
			r *= base
		}
		base *= base
	}
	return r
}

// Forward sets out (m×D) to φ(Z) for Z (m×d0) and keeps what Backward needs.
func (h *HyLaMap) Forward(z, out *mat.Dense) {
	m, _ := z.Dims()
	D := h.Features()
	checkDims("HyLa Forward: Z", z, m, h.Dim())
	checkDims("HyLa Forward: output", out, m, D)
	h.keepZ(z)
	if v := h.vec; v != nil {
		v.e1 = growPooled(v.e1, m*v.dp)
		v.call = hylaCall{op: hylaOpForward, out: out}
		h.vecRun(m)
		v.e1OK = true
		return
	}
	h.e1 = growPooled(h.e1, m*D)
	h.e2 = growPooled(h.e2, m*D)
	if rowSerial(m, D, h.workers) {
		h.forwardRows(out, 0, m)
		return
	}
	rowParallel(m, D, h.workers, func(lo, hi int) { h.forwardRows(out, lo, hi) })
}

// Release hands the map's large arrays (those Forward keeps for Backward)
// to a pool that the next map's Forward takes them from, which spares it
// the page faults of fresh memory. The map stays usable: its next Forward
// takes new arrays; Backward needs a Forward after Release.
func (h *HyLaMap) Release() {
	if v := h.vec; v != nil {
		putBuf(v.phi)
		putBuf(v.e1)
		putBuf(v.e2)
		v.phi, v.e1, v.e2 = nil, nil, nil
		v.uOK, v.e1OK = false, false
	}
	putBuf(h.e1)
	putBuf(h.e2)
	h.e1, h.e2 = nil, nil
	h.rows = 0
}

// keepZ copies Z and 1−‖z_i‖² for Backward.
func (h *HyLaMap) keepZ(z *mat.Dense) {
	m, d0 := z.Dims()
	if v := h.vec; v != nil {
		v.phi = growPooled(v.phi, m*v.dp)
		v.e2 = growPooled(v.e2, m*v.dp)
		v.uOK, v.e1OK = false, false
	}
	h.rows = m
	h.z = grow(h.z, m*d0)
	h.a = grow(h.a, m)
	for i := 0; i < m; i++ {
		zi := h.z[i*d0 : (i+1)*d0]
		copy(zi, z.RawRowView(i))
		h.a[i] = oneMinusSq(zi)
	}
}

// ForwardLinear sets yT (C×m) to Yᵀ = Wᵀ·φ(Z)ᵀ for Z (m×d0) and the
// transposed weights wT (C×D) of a linear layer fed by the map, without
// forming φ(Z) for the caller, and keeps what BackwardLinear needs for the
// same wT. It reports false, doing
// nothing, where it has no fused kernel (d0 > hylaVecMaxDim: no vector
// tables); the caller then calls Forward and forms the product itself.
// Each entry of Yᵀ is one fixed-order sum over the D features, so the
// result does not depend on the number of workers.
func (h *HyLaMap) ForwardLinear(z, wT, yT *mat.Dense) bool {
	if h.vec == nil {
		return false
	}
	m, _ := z.Dims()
	c, _ := wT.Dims()
	checkDims("HyLa ForwardLinear: Z", z, m, h.Dim())
	checkDims("HyLa ForwardLinear: layer weights", wT, c, h.Features())
	checkDims("HyLa ForwardLinear: output", yT, c, m)
	h.keepZ(z)
	v := h.vec
	v.padWeights(wT)
	v.u = grow(v.u, m*c)
	v.call = hylaCall{op: hylaOpForwardLinear, yT: yT}
	h.vecRun(m)
	v.uOK = true
	return true
}

// forwardRows computes rows [lo, hi) of Forward with the scalar code
// (without a closure: nothing is allocated when it runs serially).
func (h *HyLaMap) forwardRows(out *mat.Dense, lo, hi int) {
	d0 := h.Dim()
	D := h.Features()
	omega := h.s.Omega.RawMatrix()
	rho := float64(h.twoRho) / 2
	for i := lo; i < hi; i++ {
		zi := h.z[i*d0 : (i+1)*d0]
		a := h.a[i]
		o := out.RawRowView(i)[:D]
		e1 := h.e1[i*D : (i+1)*D]
		e2 := h.e2[i*D : (i+1)*D]
		// Three passes over the row keep each loop short with independent
		// iterations, which the CPU overlaps much better than one long
		// body (docs/performance.md): distances into e2; then log P into
		// e1, 1/q into e2 and P^ρ into o; then the outputs.
		for j0 := 0; j0 < D; j0 += 4 {
			sqDist4(zi, omega.Data, omega.Stride, j0, e2[j0:min(j0+4, D)])
		}
		for j, qj := range e2 {
			invq := 1 / qj
			p := a * invq
			e1[j] = math.Log(p)
			e2[j] = invq
			o[j] = powHalf(p, h.twoRho)
		}
		for j := range o {
			lam := h.lam[j]
			mag := o[j]
			sn, cs := vec.Sincos(float64(lam*e1[j]) + h.s.B[j])
			o[j] = mag * cs
			d := mag * (rho*cs - lam*sn)
			e1[j] = d
			e2[j] *= d
		}
	}
}

// transposedSamples returns Ωᵀ (d0×dp, columns j ≥ D repeating sample D−1)
// and sin b_j, cos b_j (length dp) for the vector kernels.
func transposedSamples(s *Samples, dp int) (omegaT, sinB, cosB []float64) {
	d, d0 := s.Features(), s.Dim()
	omegaT = make([]float64, d0*dp)
	sinB, cosB = make([]float64, dp), make([]float64, dp)
	for j := 0; j < dp; j++ {
		src := min(j, d-1)
		for k, v := range s.Omega.RawRowView(src) {
			omegaT[k*dp+j] = v
		}
		sinB[j], cosB[j] = vec.Sincos(s.B[src])
	}
	return omegaT, sinB, cosB
}

// hylaVecMaxDim bounds d0 for the vector kernels (their tables are d0×dp);
// a larger d0 runs the scalar code.
const hylaVecMaxDim = 1024

// hylaVec is the state of the vector path of the HyLa map. The samples are
// padded to dp, a multiple of eight; the padding repeats the last sample, so
// the padded lanes compute finite values, which are never used (the padded
// weights and gradients are zero). The forward passes keep φ, ∂φ/∂h and
// ∂φ/∂h/q (m×dp each) for the backward passes: recomputing them there from
// Z, in row buffers that stay in cache, costs more CPU per epoch than the
// memory traffic it saves (docs/performance.md).
type hylaVec struct {
	dp              int
	omegaT          []float64 // Ωᵀ, d0×dp
	phase           []float64 // RFF only: b, dp (vec.RFFExact)
	lam, sinB, cosB []float64 // λ', sin b, cos b, dp each
	scratch         []*hylaScratch
	wpad            []float64 // Wᵀ with zero columns up to dp (C×dp)
	// u holds, after ForwardLinear, U_ic = Σ_j W_jc·∂φ_ij/∂h (m×C) for the
	// weights in wpad: with it BackwardLinear needs no m×D array of ∂φ/∂h
	// (Σ_j g_ij·∂φ_ij/∂h = Σ_c (∂L/∂Y)_ic·U_ic), a third less memory to
	// write and read per epoch. Forward keeps ∂φ/∂h itself (e1) instead.
	u         []float64
	uOK, e1OK bool
	part      []float64 // BackwardLinear: ∂L/∂Wᵀ of each row block (blocks×C×dp)
	classes   int
	call      hylaCall
	// φ, ∂φ/∂h (Forward only) and ∂φ/∂h/‖z−ω‖² of the last forward
	// pass, m×dp each.
	phi, e1, e2 []float64
	// omegaP holds Ωᵀ again as panels of pw samples (HyLa only): panel p
	// is the contiguous d0×pw block of samples [p·pw, (p+1)·pw), samples
	// past dp repeating sample D−1 like the padding. The distances of a
	// few rows are computed panel by panel (hylaVecDists), so a panel is
	// read from the L1 cache for every row but the first, where the
	// strided rows of Ωᵀ (d0·dp·8 bytes, 200 KB at d0 50, D 500) stream
	// from L2 for every row; and every panel is a whole number of the
	// distance kernel's widest blocks (32 lanes on AVX2), where dp leaves
	// a tail of narrow ones that wait on the latency of their two sums.
	omegaP []float64
	pw, dq int // panel width, dp rounded up to it
}

// hylaSub is the number of rows whose distances, and whose gradients
// through Ωᵀ, the vector kernels compute together: enough to read each
// panel of Ωᵀ (or strip of four of its rows) from L1 for most of them,
// few enough that their row buffers stay in L2.
const hylaSub = 8

// hylaWideClasses is the number of classes from which the HyLa and RFF
// maps' products with the layer's weights are grouped over the hylaSub
// rows (vecBlock): four rows by four classes in registers, each weight
// strip read from L1 for the rows after the first. With fewer classes
// they go row by row while the row's φ and ∂φ/∂h are in L1. At R8's
// eight classes grouping takes 0.96 of the row-by-row CPU time
// (docs/performance.md); at R52's 52 the weights (210 KB) no longer fit
// L1 beside a row. A variable so that tests can compare the two
// groupings' bits.
var hylaWideClasses = 8

// hylaScratch holds one worker's row buffers.
type hylaScratch struct {
	q, c, g, e1 []float64 // dp each
	y           []float64 // C
	// HyLa only: the distances (hylaSub×dq), ∂φ/∂h (hylaSub×dp; when the
	// map does not keep it), c_j = g_j·e2_j (hylaSub×dp), f (hylaSub), the
	// rows of Y and of ∂L/∂Y (hylaSub×C each) of hylaSub rows.
	qb, e1b, cb, fb, yb, gyb []float64
	// gw: with many classes, the sums g = ∂L/∂Y·W of hylaSub rows (hylaSub×dp).
	gw []float64
}

type hylaOp int

const (
	hylaOpForward hylaOp = iota
	hylaOpForwardLinear
	hylaOpBackward
	hylaOpBackwardLinear
)

// hylaCall is what vecRun computes for each row.
type hylaCall struct {
	op                  hylaOp
	z                   *mat.Dense // ForwardLinear of the RFF map
	out, yT             *mat.Dense // Forward, ForwardLinear
	gradOut, gyT, gradZ *mat.Dense // Backward, BackwardLinear
	gradW               bool       // BackwardLinear: accumulate ∂L/∂Wᵀ into part
}

func newHylaVec(s *Samples, lam []float64) *hylaVec {
	D := s.Features()
	dp := (D + 7) / 8 * 8
	v := &hylaVec{dp: dp}
	v.omegaT, v.sinB, v.cosB = transposedSamples(s, dp)
	v.lam = make([]float64, dp)
	for j := range v.lam {
		v.lam[j] = lam[min(j, D-1)]
	}
	d0 := s.Dim()
	v.pw = 64
	if d0 > 64 {
		v.pw = 32 // a panel of at most 32·d0·8 bytes (a larger d0 reads it from L2)
	}
	v.dq = (dp + v.pw - 1) / v.pw * v.pw
	v.omegaP = make([]float64, d0*v.dq)
	for p := 0; p < v.dq/v.pw; p++ {
		panel := v.omegaP[p*d0*v.pw : (p+1)*d0*v.pw]
		for j := 0; j < v.pw; j++ {
			for k, x := range s.Omega.RawRowView(min(p*v.pw+j, D-1)) {
				panel[k*v.pw+j] = x
			}
		}
	}
	return v
}

// padWeights copies Wᵀ (C×D) into wpad (C×dp, zero padding).
func (v *hylaVec) padWeights(wT *mat.Dense) {
	c, D := wT.Dims()
	v.setClasses(c)
	for k := 0; k < c; k++ {
		copy(v.wpad[k*v.dp:k*v.dp+D], wT.RawRowView(k))
	}
}

// sameWeights reports whether wT (C×D) holds the weights in wpad.
func (v *hylaVec) sameWeights(wT *mat.Dense) bool {
	c, D := wT.Dims()
	if c != v.classes {
		return false
	}
	for k := 0; k < c; k++ {
		for j, x := range wT.RawRowView(k)[:D] {
			if x != v.wpad[k*v.dp+j] {
				return false
			}
		}
	}
	return true
}

// setClasses sizes the buffers that depend on C.
func (v *hylaVec) setClasses(c int) {
	if v.classes == c && len(v.wpad) == c*v.dp {
		return
	}
	v.classes = c
	v.wpad = make([]float64, c*v.dp)
	for _, sc := range v.scratch {
		sc.y = make([]float64, c)
	}
}

// ensureScratch provides scratch for w workers.
func (v *hylaVec) ensureScratch(w int) {
	for len(v.scratch) < w {
		sc := &hylaScratch{y: make([]float64, v.classes)}
		buf := make([]float64, 4*v.dp)
		sc.q, sc.c, sc.g, sc.e1 = buf[:v.dp], buf[v.dp:2*v.dp], buf[2*v.dp:3*v.dp], buf[3*v.dp:]
		if v.omegaP != nil {
			sc.qb = make([]float64, hylaSub*v.dq)
			sc.e1b = make([]float64, hylaSub*v.dp)
			sc.cb = make([]float64, hylaSub*v.dp)
			sc.fb = make([]float64, hylaSub)
		}
		v.scratch = append(v.scratch, sc)
	}
}

// hylaRowBlock returns the rows per block of the vector path. The blocks
// depend on m only, so the per-block partial sums of ∂L/∂Wᵀ, and with them
// the result, do not depend on the number of workers; there are at most 16.
func hylaRowBlock(m int) int { return max(64, (m+15)/16) }

// vecRun runs h.vec.call over the m rows in blocks, on up to h.workers
// goroutines (block b on worker b mod workers).
func (h *HyLaMap) vecRun(m int) { runRowBlocks(h, h.vec, m, h.Features(), h.workers) }

// rowBlocker computes rows [lo, hi) (block b) of a map's current call with
// the scratch space sc: HyLaMap and RFFMap.
type rowBlocker interface {
	vecBlock(sc *hylaScratch, b, lo, hi int)
}

// runRowBlocks runs f over the m rows in hylaRowBlock-sized blocks, on up
// to workers goroutines (block b on worker b mod workers), with v's
// scratch; features is the map's D (small calls run serially).
func runRowBlocks(f rowBlocker, v *hylaVec, m, features, workers int) {
	per := hylaRowBlock(m)
	nb := (m + per - 1) / per
	w := min(workers, nb)
	if m*features < minParallelEntries {
		w = 1
	}
	v.ensureScratch(max(w, 1))
	if w <= 1 {
		for b := 0; b < nb; b++ {
			f.vecBlock(v.scratch[0], b, b*per, min((b+1)*per, m))
		}
		return
	}
	runRowBlocksParallel(f, v, m, per, nb, w)
}

// runRowBlocksParallel is runRowBlocks' parallel part (a function of its
// own, so the serial path allocates nothing).
func runRowBlocksParallel(f rowBlocker, v *hylaVec, m, per, nb, w int) {
	parallel.Blocks(context.Background(), m, per, w, func(k, lo, hi int) {
		f.vecBlock(v.scratch[k], lo/per, lo, hi)
	})
}

// vecBlock computes rows [lo, hi) (block b) of the current call.
func (h *HyLaMap) vecBlock(sc *hylaScratch, b, lo, hi int) {
	v := h.vec
	d0, D, dp := h.Dim(), h.Features(), v.dp
	c := &v.call
	nc := v.classes
	if len(sc.gyb) < hylaSub*nc {
		sc.gyb, sc.yb = make([]float64, hylaSub*nc), make([]float64, hylaSub*nc)
	}
	// From hylaWideClasses classes the products with the layer's weights
	// go four classes at a time over the hylaSub rows; with fewer, row by
	// row, while the row's φ and ∂φ/∂h are still in L1. The bits are the
	// same.
	wide := nc >= hylaWideClasses
	var part []float64
	if c.op == hylaOpBackwardLinear && c.gradW {
		part = v.part[b*v.classes*dp : (b+1)*v.classes*dp]
		clear(part)
	}
	// hylaSub rows at a time: their distances (forward) or their
	// gradients through Ωᵀ (backward) panel by panel, and with many
	// classes their products with the layer's weights four classes at a
	// time; the rest row by row in row order. Every entry is the same sequence of operations as
	// row by row, so the bits do not depend on the grouping.
	for s := lo; s < hi; s += hylaSub {
		e := min(s+hylaSub, hi)
		switch c.op {
		case hylaOpForward, hylaOpForwardLinear:
			hylaVecDists(v, h.z[s*d0:e*d0], d0, e-s, sc.qb)
		case hylaOpBackwardLinear:
			if wide {
				v.groupGrad(sc, c.gyT, s, e)
			}
		}
		for i := s; i < e; i++ {
			zi := h.z[i*d0 : (i+1)*d0]
			a := h.a[i]
			phi, e2 := v.phi[i*dp:(i+1)*dp], v.e2[i*dp:(i+1)*dp]
			e1 := sc.e1b[(i-s)*dp : (i-s+1)*dp]
			if v.e1OK || c.op == hylaOpForward {
				e1 = v.e1[i*dp : (i+1)*dp]
			}
			q := sc.qb[(i-s)*v.dq : (i-s)*v.dq+dp]
			cbuf := sc.cb[(i-s)*dp : (i-s+1)*dp]
			switch c.op {
			case hylaOpForward:
				hylaVecRow(h, q, phi, e1, e2, zi, a)
				copy(c.out.RawRowView(i)[:D], phi[:D])
			case hylaOpForwardLinear:
				hylaVecRow(h, q, phi, e1, e2, zi, a)
				if !wide {
					vec.RowDots(phi[:dp], v.wpad, dp, sc.y)
					ym := c.yT.RawMatrix()
					for k, y := range sc.y {
						ym.Data[k*ym.Stride+i] = y
					}
					vec.RowDots(e1[:dp], v.wpad, dp, v.u[i*nc:(i+1)*nc])
				}
			case hylaOpBackward:
				copy(sc.g[:D], c.gradOut.RawRowView(i)[:D])
				clear(sc.g[D:])
				sc.fb[i-s] = hylaVecGradPass(h, cbuf, sc.g, nil, e1, e2, nil, a)
			case hylaOpBackwardLinear:
				gy := sc.gyb[(i-s)*nc : (i-s+1)*nc]
				var g []float64 // nil: the pass forms g from gy and W
				if wide {
					g = sc.gw[(i-s)*dp : (i-s+1)*dp]
				} else {
					gm := c.gyT.RawMatrix()
					for k := range gy {
						gy[k] = gm.Data[k*gm.Stride+i]
					}
				}
				if v.e1OK {
					sc.fb[i-s] = hylaVecGradPass(h, cbuf, g, gy, e1, e2, nil, a)
				} else {
					sc.fb[i-s] = hylaVecGradPass(h, cbuf, g, gy, nil, e2, v.u[i*nc:(i+1)*nc], a)
				}
				if part != nil && !wide {
					hylaVecAxpy(part, dp, gy, phi)
				}
			}
		}
		switch {
		case !wide:
		case c.op == hylaOpForwardLinear:
			// Y = φW and U = (∂φ/∂h)W of the rows, four classes at a time.
			e1 := sc.e1b[:(e-s)*dp]
			if v.e1OK {
				e1 = v.e1[s*dp : e*dp]
			}
			v.groupForward(sc, c.yT, s, e)
			hylaVecRowDots(e1, e-s, dp, v.wpad, nc, v.u[s*nc:e*nc], nc)
		case c.op == hylaOpBackwardLinear:
			if part != nil {
				hylaVecAxpyRows(part, dp, sc.gyb, nc, v.phi[s*dp:e*dp], e-s)
			}
		}
		switch c.op {
		case hylaOpBackward, hylaOpBackwardLinear:
			g := c.gradZ.RawMatrix()
			hylaVecGz(sc.cb, v.omegaT[:d0*dp], dp, d0, e-s, g.Data[s*g.Stride:], g.Stride)
			for i := s; i < e; i++ {
				hylaVecGradEnd(g.Data[i*g.Stride:i*g.Stride+d0], h.z[i*d0:(i+1)*d0], sc.fb[i-s])
			}
		}
	}
}

// groupForward sets the columns [s, e) of yT to Y = φW of those rows,
// four classes at a time over all of them (hylaVecRowDots): the wide
// forward pass of both maps.
func (v *hylaVec) groupForward(sc *hylaScratch, yT *mat.Dense, s, e int) {
	nc, dp := v.classes, v.dp
	hylaVecRowDots(v.phi[s*dp:e*dp], e-s, dp, v.wpad, nc, sc.yb, nc)
	ym := yT.RawMatrix()
	for i := s; i < e; i++ {
		for k, y := range sc.yb[(i-s)*nc : (i-s+1)*nc] {
			ym.Data[k*ym.Stride+i] = y
		}
	}
}

// groupGrad gathers the rows [s, e) of ∂L/∂Y (columns of gyT) into
// sc.gyb and sets sc.gw to g = ∂L/∂Y·W for all of them, sixteen columns
// of W at a time (vec.GyW: the sums GradPass forms, which the row pass
// then scales): the wide backward pass of both maps.
func (v *hylaVec) groupGrad(sc *hylaScratch, gyT *mat.Dense, s, e int) {
	nc, dp := v.classes, v.dp
	gm := gyT.RawMatrix()
	for i := s; i < e; i++ {
		gy := sc.gyb[(i-s)*nc : (i-s+1)*nc]
		for k := range gy {
			gy[k] = gm.Data[k*gm.Stride+i]
		}
	}
	if len(sc.gw) < hylaSub*dp {
		sc.gw = make([]float64, hylaSub*dp)
	}
	vec.GyW(sc.gw, dp, sc.gyb, nc, e-s, v.wpad, dp, nc, dp)
}

// forwardScalar computes entries [jlo, jhi) of one row of Forward with the
// math package, one entry at a time (the vector kernels' fallback; the
// float64 conversions keep the compiler from fusing, so the bits are the
// same on every amd64 CPU and build).
func (h *HyLaMap) forwardScalar(zi []float64, a float64, o, e1, e2 []float64, jlo, jhi int) {
	d0 := len(zi)
	omega := h.s.Omega.RawMatrix()
	rho := float64(h.twoRho) / 2
	for j := jlo; j < jhi; j++ {
		invq := 1 / sqDist(zi, omega.Data[j*omega.Stride:j*omega.Stride+d0])
		p := a * invq
		mag := powHalf(p, h.twoRho)
		lam := h.lam[j]
		sn, cs := vec.Sincos(float64(lam*math.Log(p)) + h.s.B[j])
		o[j] = mag * cs
		d := mag * (float64(rho*cs) - float64(lam*sn))
		e1[j] = d
		e2[j] = invq * d
	}
}

// sqDist4 sets q[t] = ‖z − ω_{j0+t}‖² for t < len(q) ≤ 4, interleaving the
// four independent sums so they do not wait on one another.
func sqDist4(z, omega []float64, stride, j0 int, q []float64) {
	d0 := len(z)
	if len(q) == 4 {
		w0 := omega[j0*stride : j0*stride+d0]
		w1 := omega[(j0+1)*stride : (j0+1)*stride+d0]
		w2 := omega[(j0+2)*stride : (j0+2)*stride+d0]
		w3 := omega[(j0+3)*stride : (j0+3)*stride+d0]
		var s0, s1, s2, s3 float64
		for k, v := range z {
			t0 := v - w0[k]
			t1 := v - w1[k]
			t2 := v - w2[k]
			t3 := v - w3[k]
			s0 += t0 * t0
			s1 += t1 * t1
			s2 += t2 * t2
			s3 += t3 * t3
		}
		q[0], q[1], q[2], q[3] = s0, s1, s2, s3
		return
	}
	for t := range q {
		q[t] = sqDist(z, omega[(j0+t)*stride:(j0+t)*stride+d0])
	}
}

// Backward sets gradZ (m×d0) to ∂L/∂Z from gradOut = ∂L/∂φ(Z) (m×D), for the
// Z of the most recent Forward or ForwardLinear:
//
//	∂h_j/∂z = −2z/(1−‖z‖²) − 2(z−ω_j)/‖z−ω_j‖².
func (h *HyLaMap) Backward(gradOut, gradZ *mat.Dense) {
	m, d0, D := h.rows, h.Dim(), h.Features()
	checkDims("HyLa Backward: gradient of the output", gradOut, m, D)
	checkDims("HyLa Backward: gradient of Z", gradZ, m, d0)
	if h.vec != nil {
		if !h.vec.e1OK || len(h.vec.e1) < m*h.vec.dp {
			panic("hyla: HyLa Backward without a Forward (ForwardLinear keeps only what BackwardLinear needs)")
		}
		h.vec.call = hylaCall{op: hylaOpBackward, gradOut: gradOut, gradZ: gradZ}
		h.vecRun(m)
		return
	}
	if len(h.e1) < m*D {
		panic("hyla: HyLa Backward without a Forward")
	}
	if rowSerial(m, D, h.workers) {
		h.backwardRows(gradOut, gradZ, 0, m)
		return
	}
	rowParallel(m, D, h.workers, func(lo, hi int) { h.backwardRows(gradOut, gradZ, lo, hi) })
}

// backwardRows computes rows [lo, hi) of the call of the same name without a closure (nothing is allocated when it runs serially).
func (h *HyLaMap) backwardRows(gradOut, gradZ *mat.Dense, lo, hi int) {
	d0, D := h.Dim(), h.Features()
	omega := h.s.Omega.RawMatrix()
	for i := lo; i < hi; i++ {
		g := gradOut.RawRowView(i)
		e1 := h.e1[i*D : (i+1)*D]
		e2 := h.e2[i*D : (i+1)*D]
		gz := gradZ.RawRowView(i)
		for k := range gz {
			gz[k] = 0
		}
		var s1, s2 float64
		j := 0
		for ; j+4 <= D; j += 4 {
			// Four samples at a time: a quarter of the loads and stores of gz.
			c0, c1, c2, c3 := g[j]*e2[j], g[j+1]*e2[j+1], g[j+2]*e2[j+2], g[j+3]*e2[j+3]
			s1 += g[j]*e1[j] + g[j+1]*e1[j+1] + g[j+2]*e1[j+2] + g[j+3]*e1[j+3]
			s2 += c0 + c1 + c2 + c3
			w0 := omega.Data[j*omega.Stride : j*omega.Stride+d0]
			w1 := omega.Data[(j+1)*omega.Stride : (j+1)*omega.Stride+d0]
			w2 := omega.Data[(j+2)*omega.Stride : (j+2)*omega.Stride+d0]
			w3 := omega.Data[(j+3)*omega.Stride : (j+3)*omega.Stride+d0]
			for k := range gz {
				gz[k] += c0*w0[k] + c1*w1[k] + c2*w2[k] + c3*w3[k]
			}
		}
		for ; j < D; j++ {
			gj := g[j]
			s1 += gj * e1[j]
			c := gj * e2[j]
			s2 += c
			w := omega.Data[j*omega.Stride : j*omega.Stride+d0]
			for k, v := range w {
				gz[k] += c * v
			}
		}
		zi := h.z[i*d0 : (i+1)*d0]
		f := s1/h.a[i] + s2
		for k := range gz {
			gz[k] = 2*gz[k] - 2*f*zi[k]
		}
	}
}

// BackwardLinear sets gradZ to ∂L/∂Z for the Z of the most recent Forward
// or ForwardLinear when the map feeds a linear layer: gradOut = ∂L/∂φ(Z) =
// gyTᵀ·wT with gyT (C×m) the transposed gradient of the layer's output and
// wT (C×D) its transposed weights (after ForwardLinear, the same weights as
// there; it panics otherwise). If gradWT is not nil it also sets it
// (C×D) to the gradient of the weights, gyT·φ(Z). It never forms an m×D
// matrix and reports false, doing nothing, where it has no fused kernel
// (d0 > hylaVecMaxDim: no vector tables); the caller then forms gradOut and
// calls Backward. The rows are summed in fixed blocks, so the results do
// not depend on the number of workers.
func (h *HyLaMap) BackwardLinear(gyT, wT, gradZ, gradWT *mat.Dense) bool {
	if h.vec == nil {
		return false
	}
	m := h.rows
	checkLinearDims("HyLa", gyT, wT, gradZ, gradWT, m, h.Dim(), h.Features())
	v := h.vec
	if len(v.e2) < m*v.dp || !(v.e1OK || v.uOK) {
		panic("hyla: HyLa BackwardLinear without a Forward or ForwardLinear")
	}
	if !v.e1OK && !v.sameWeights(wT) {
		panic("hyla: HyLa BackwardLinear with other weights than the ForwardLinear before it")
	}
	v.padWeights(wT)
	v.backwardLinear(h, m, h.Features(), h.workers, gyT, gradZ, gradWT)
	return true
}

// checkLinearDims panics unless gyT is C×m, wT C×D, gradZ m×d0 and gradWT
// (if not nil) C×D, for the BackwardLinear of the map named by which.
func checkLinearDims(which string, gyT, wT, gradZ, gradWT *mat.Dense, m, d0, D int) {
	c, _ := gyT.Dims()
	check := func(what string, x *mat.Dense, rows, cols int) {
		if r, cc := x.Dims(); r != rows || cc != cols {
			checkDims(which+" BackwardLinear: "+what, x, rows, cols) // panics; names built only then
		}
	}
	check("gradient of the layer output", gyT, c, m)
	check("layer weights", wT, c, D)
	check("gradient of Z", gradZ, m, d0)
	if gradWT != nil {
		check("gradient of the layer weights", gradWT, c, D)
	}
}

// backwardLinear runs a fused backward pass of f (HyLaMap or RFFMap, whose
// tables v holds) over its m rows and, if gradWT is not nil, sums the row
// blocks' partial weight gradients into it in block order.
func (v *hylaVec) backwardLinear(f rowBlocker, m, features, workers int, gyT, gradZ, gradWT *mat.Dense) {
	c, _ := gyT.Dims()
	per := hylaRowBlock(m)
	nb := (m + per - 1) / per
	if gradWT != nil && len(v.part) < nb*c*v.dp {
		v.part = make([]float64, nb*c*v.dp)
	}
	v.call = hylaCall{op: hylaOpBackwardLinear, gyT: gyT, gradZ: gradZ, gradW: gradWT != nil}
	runRowBlocks(f, v, m, features, workers)
	if gradWT != nil {
		v.sumParts(gradWT, nb)
	}
}

// sumParts sets gradWT (C×D) to the sum of the nb row blocks' partial sums
// in part, in block order.
func (v *hylaVec) sumParts(gradWT *mat.Dense, nb int) {
	c, D := gradWT.Dims()
	for k := 0; k < c; k++ {
		dst := gradWT.RawRowView(k)[:D]
		copy(dst, v.part[k*v.dp:k*v.dp+D])
		for b := 1; b < nb; b++ {
			src := v.part[(b*c+k)*v.dp : (b*c+k)*v.dp+D]
			for j, x := range src {
				dst[j] += x
			}
		}
	}
}

// RFFMap is the random Fourier feature map of the official code's baseline,
// φ_j(z) = √(2/d0)·cos(⟨Λ_j, z⟩ + b_j), for Euclidean points z ∈ R^{d0}
// (note √(2/d0), not √(2/D), as in the code).
type RFFMap struct {
	s *Samples
	// lin holds the padded tables and the arrays of the fused kernels
	// (rff_linear.go); nil when d0 > hylaVecMaxDim.
	lin *hylaVec
	// plain: the last forward pass was Forward (not ForwardLinear).
	plain bool
	// For the vector forward kernel (kernels.go) only: Λ as d0×D, sin b_j, cos b_j.
	omegaT, sinB, cosB []float64
	scale              float64
	workers            int

	rows int
	e    []float64 // −√(2/d0)·sin(·), rows×D
}

// NewRFFMap returns the RFF map of RFF samples s (Kind "rff"; row j of
// s.Omega is column j of Λ). It uses runtime.GOMAXPROCS(0) workers until
// SetWorkers says otherwise.
func NewRFFMap(s *Samples) FeatureMap {
	m, err := NewRFF(s)
	if err != nil {
		panic(err)
	}
	return m
}

// NewRFF is NewRFFMap returning the concrete type and an error for
// inconsistent samples.
func NewRFF(s *Samples) (*RFFMap, error) {
	if s == nil || s.Omega == nil {
		return nil, fmt.Errorf("hyla: RFF map: no samples")
	}
	if s.Kind != "" && s.Kind != "rff" {
		return nil, fmt.Errorf("hyla: RFF map: samples are of kind %q, want \"rff\"", s.Kind)
	}
	if len(s.B) != s.Features() {
		return nil, fmt.Errorf("hyla: RFF map: %d frequencies but %d phases", s.Features(), len(s.B))
	}
	if s.Dim() < 1 {
		return nil, fmt.Errorf("hyla: RFF map: dimension %d", s.Dim())
	}
	r := &RFFMap{s: s, scale: math.Sqrt(2 / float64(s.Dim())), workers: runtime.GOMAXPROCS(0)}
	if s.Dim() <= hylaVecMaxDim {
		r.omegaT, r.sinB, r.cosB = transposedSamples(s, s.Features())
		dp := (s.Features() + 7) / 8 * 8
		r.lin = &hylaVec{dp: dp}
		r.lin.omegaT, r.lin.sinB, r.lin.cosB = transposedSamples(s, dp)
		r.lin.phase = make([]float64, dp)
		for j := range dp {
			r.lin.phase[j] = s.B[min(j, s.Features()-1)]
		}
	}
	return r, nil
}

// Dim returns d0.
func (r *RFFMap) Dim() int { return r.s.Dim() }

// Features returns D.
func (r *RFFMap) Features() int { return r.s.Features() }

// SetWorkers sets the number of goroutines Forward and Backward use (≥ 1).
// The results do not depend on it.
func (r *RFFMap) SetWorkers(n int) { r.workers = max(n, 1) }

// Release hands the array Forward keeps for Backward to the pool the next
// map's Forward takes it from (see HyLaMap.Release).
func (r *RFFMap) Release() {
	putBuf(r.e)
	r.e = nil
	if v := r.lin; v != nil {
		putBuf(v.phi)
		putBuf(v.e2)
		v.phi, v.e2, v.uOK = nil, nil, false
	}
	r.rows, r.plain = 0, false
}

// Forward sets out (m×D) to φ(Z) for Z (m×d0).
func (r *RFFMap) Forward(z, out *mat.Dense) {
	m, _ := z.Dims()
	D := r.Features()
	checkDims("RFF Forward: Z", z, m, r.Dim())
	checkDims("RFF Forward: output", out, m, D)
	r.rows, r.plain = m, true
	r.e = growPooled(r.e, m*D)
	if rowSerial(m, D, r.workers) {
		r.forwardRows(z, out, 0, m)
		return
	}
	rowParallel(m, D, r.workers, func(lo, hi int) { r.forwardRows(z, out, lo, hi) })
}

// forwardRows computes rows [lo, hi) of the call of the same name without a closure (nothing is allocated when it runs serially).
func (r *RFFMap) forwardRows(z, out *mat.Dense, lo, hi int) {

	D := r.Features()
	omega := r.s.Omega.RawMatrix()
	for i := lo; i < hi; i++ {
		zi := z.RawRowView(i)
		o := out.RawRowView(i)[:D]
		e := r.e[i*D : (i+1)*D]
		if r.omegaT != nil {
			rffForwardRow(r, zi, o, e)
			continue
		}
		// Two passes, as in HyLaMap.Forward: the arguments into o, then the outputs.
		for j0 := 0; j0 < D; j0 += 4 {
			dot4(zi, omega.Data, omega.Stride, j0, o[j0:min(j0+4, D)])
		}
		for j, arg := range o {
			sn, cs := vec.Sincos(arg + r.s.B[j])
			o[j] = r.scale * cs
			e[j] = -r.scale * sn
		}
	}
}

// forwardScalar computes entries [jlo, jhi) of one row of Forward with the
// math package (the vector kernels' fallback for wide arguments; the
// float64 conversions keep the compiler from fusing, so the bits are the
// same on every amd64 CPU and build).
func (r *RFFMap) forwardScalar(zi, o, e []float64, jlo, jhi int) {
	omega := r.s.Omega.RawMatrix()
	d0 := len(zi)
	for j := jlo; j < jhi; j++ {
		w := omega.Data[j*omega.Stride : j*omega.Stride+d0]
		var arg float64
		for k, v := range zi {
			arg += float64(v * w[k])
		}
		sn, cs := vec.Sincos(arg + r.s.B[j])
		o[j] = r.scale * cs
		e[j] = -r.scale * sn
	}
}

// dot4 sets q[t] = ⟨z, ω_{j0+t}⟩ for t < len(q) ≤ 4 with interleaved sums.
func dot4(z, omega []float64, stride, j0 int, q []float64) {
	d0 := len(z)
	if len(q) == 4 {
		w0 := omega[j0*stride : j0*stride+d0]
		w1 := omega[(j0+1)*stride : (j0+1)*stride+d0]
		w2 := omega[(j0+2)*stride : (j0+2)*stride+d0]
		w3 := omega[(j0+3)*stride : (j0+3)*stride+d0]
		var s0, s1, s2, s3 float64
		for k, v := range z {
			s0 += v * w0[k]
			s1 += v * w1[k]
			s2 += v * w2[k]
			s3 += v * w3[k]
		}
		q[0], q[1], q[2], q[3] = s0, s1, s2, s3
		return
	}
	for t := range q {
		w := omega[(j0+t)*stride : (j0+t)*stride+d0]
		var s float64
		for k, v := range z {
			s += v * w[k]
		}
		q[t] = s
	}
}

// Backward sets gradZ (m×d0) to ∂L/∂Z from gradOut (m×D) for the Z of the
// most recent Forward.
func (r *RFFMap) Backward(gradOut, gradZ *mat.Dense) {
	m, d0, D := r.rows, r.Dim(), r.Features()
	checkDims("RFF Backward: gradient of the output", gradOut, m, D)
	checkDims("RFF Backward: gradient of Z", gradZ, m, d0)
	if !r.plain || len(r.e) < m*D {
		panic("hyla: RFF Backward without a Forward (ForwardLinear keeps only what BackwardLinear needs)")
	}
	if rowSerial(m, D, r.workers) {
		r.backwardRows(gradOut, gradZ, 0, m)
		return
	}
	rowParallel(m, D, r.workers, func(lo, hi int) { r.backwardRows(gradOut, gradZ, lo, hi) })
}

// backwardRows computes rows [lo, hi) of the call of the same name without a closure (nothing is allocated when it runs serially).
func (r *RFFMap) backwardRows(gradOut, gradZ *mat.Dense, lo, hi int) {
	d0, D := r.Dim(), r.Features()
	omega := r.s.Omega.RawMatrix()
	for i := lo; i < hi; i++ {
		g := gradOut.RawRowView(i)
		e := r.e[i*D : (i+1)*D]
		gz := gradZ.RawRowView(i)
		for k := range gz {
			gz[k] = 0
		}
		j := 0
		for ; j+4 <= D; j += 4 {
			c0, c1, c2, c3 := g[j]*e[j], g[j+1]*e[j+1], g[j+2]*e[j+2], g[j+3]*e[j+3]
			w0 := omega.Data[j*omega.Stride : j*omega.Stride+d0]
			w1 := omega.Data[(j+1)*omega.Stride : (j+1)*omega.Stride+d0]
			w2 := omega.Data[(j+2)*omega.Stride : (j+2)*omega.Stride+d0]
			w3 := omega.Data[(j+3)*omega.Stride : (j+3)*omega.Stride+d0]
			for k := range gz {
				gz[k] += c0*w0[k] + c1*w1[k] + c2*w2[k] + c3*w3[k]
			}
		}
		for ; j < D; j++ {
			c := g[j] * e[j]
			w := omega.Data[j*omega.Stride : j*omega.Stride+d0]
			for k, v := range w {
				gz[k] += c * v
			}
		}
	}
}

// KernelPath names the vector kernels the feature maps and the classifier
// run on this CPU: "avx512", "avx2" or "generic" (portable Go), as chosen by
// internal/vec from the CPU and HYLAFLOW_CPU. All three give the same bits.
func KernelPath() string { return vec.Path() }
