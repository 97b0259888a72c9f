package hyla

import (
	"github.com/hylaflow/hylaflow/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// The RFF map's kernels fused with a linear layer (for d0 ≤ hylaVecMaxDim;
// above it ForwardLinear and BackwardLinear report false): the same
// structure as HyLaMap's, on the same padded tables (hylaVec), with the RFF
// row kernel (rffVecRow) and gradient (rffVecGrad).

// ForwardLinear sets yT (C×m) to Yᵀ = Wᵀ·φ(Z)ᵀ for Z (m×d0) and the
// transposed weights wT (C×D) of a linear layer fed by the map, without
// forming φ(Z) for the caller, and keeps what BackwardLinear needs for the
// same wT. It reports false, doing nothing, where it has no fused kernel;
// the caller then calls Forward and forms the product itself. Each entry
// of Yᵀ is one fixed-order sum, so the result does not depend on the
// number of workers.
func (r *RFFMap) ForwardLinear(z, wT, yT *mat.Dense) bool {
	v := r.lin
	if v == nil {
		return false
	}
	m, _ := z.Dims()
	c, _ := wT.Dims()
	checkDims("RFF ForwardLinear: Z", z, m, r.Dim())
	checkDims("RFF ForwardLinear: layer weights", wT, c, r.Features())
	checkDims("RFF ForwardLinear: output", yT, c, m)
	r.rows, r.plain = m, false
	v.phi = growPooled(v.phi, m*v.dp)
	v.e2 = growPooled(v.e2, m*v.dp)
	v.padWeights(wT)
	v.call = hylaCall{op: hylaOpForwardLinear, z: z, yT: yT}
	r.vecRun(m)
	v.uOK = true
	return true
}

// BackwardLinear sets gradZ to ∂L/∂Z for the Z of the most recent
// ForwardLinear, with gyT (C×m) the transposed gradient of the layer's
// output and wT (C×D) its transposed weights (ForwardLinear's; it panics on
// others), and, if gradWT is not nil, gradWT (C×D) to the gradient of the
// weights, gyT·φ(Z), summed over fixed row blocks so that the result does
// not depend on the number of workers. It never forms an m×D matrix, and
// reports false, doing nothing, without a fused kernel or after a Forward
// (the caller then forms ∂L/∂φ and calls Backward).
func (r *RFFMap) BackwardLinear(gyT, wT, gradZ, gradWT *mat.Dense) bool {
	v := r.lin
	if v == nil || !v.uOK || r.plain {
		return false
	}
	checkLinearDims("RFF", gyT, wT, gradZ, gradWT, r.rows, r.Dim(), r.Features())
	if !v.sameWeights(wT) {
		panic("hyla: RFF BackwardLinear with other weights than the ForwardLinear before it")
	}
	v.backwardLinear(r, r.rows, r.Features(), r.workers, gyT, gradZ, gradWT)
	return true
}

// vecRun runs r.lin.call over the m rows in blocks, on up to r.workers
// goroutines (as HyLaMap.vecRun).
func (r *RFFMap) vecRun(m int) { runRowBlocks(r, r.lin, m, r.Features(), r.workers) }

// vecBlock computes rows [lo, hi) (block b) of the current call. With
// many classes (as HyLaMap.vecBlock) the products with the layer's
// weights go four classes at a time over hylaSub rows, so the weights'
// strips and ∂W's partial sums stay in L1; the bits are the same.
func (r *RFFMap) vecBlock(sc *hylaScratch, b, lo, hi int) {
	v := r.lin
	d0, dp := r.Dim(), v.dp
	c := &v.call
	nc := v.classes
	if len(sc.gyb) < hylaSub*nc {
		sc.gyb, sc.yb = make([]float64, hylaSub*nc), make([]float64, hylaSub*nc)
	}
	wide := nc >= hylaWideClasses
	var part []float64
	if c.op == hylaOpBackwardLinear && c.gradW {
		part = v.part[b*v.classes*dp : (b+1)*v.classes*dp]
		clear(part)
	}
	for s := lo; s < hi; s += hylaSub {
		e := min(s+hylaSub, hi)
		if c.op == hylaOpBackwardLinear && wide {
			v.groupGrad(sc, c.gyT, s, e)
		}
		for i := s; i < e; i++ {
			phi, e2 := v.phi[i*dp:(i+1)*dp], v.e2[i*dp:(i+1)*dp]
			switch c.op {
			case hylaOpForwardLinear:
				rffVecRow(r, v, sc.q, phi, e2, c.z.RawRowView(i)[:d0])
				if !wide {
					vec.RowDots(phi[:dp], v.wpad, dp, sc.y)
					ym := c.yT.RawMatrix()
					for k, y := range sc.y {
						ym.Data[k*ym.Stride+i] = y
					}
				}
			case hylaOpBackwardLinear:
				gy := sc.gyb[(i-s)*nc : (i-s+1)*nc]
				var g []float64
				if wide {
					g = sc.gw[(i-s)*dp : (i-s+1)*dp]
				} else {
					gm := c.gyT.RawMatrix()
					for k := range gy {
						gy[k] = gm.Data[k*gm.Stride+i]
					}
				}
				rffVecGrad(v, sc.c, g, gy, e2, c.gradZ.RawRowView(i)[:d0])
				if part != nil && !wide {
					hylaVecAxpy(part, dp, gy, phi)
				}
			}
		}
		switch {
		case !wide:
		case c.op == hylaOpForwardLinear:
			v.groupForward(sc, c.yT, s, e)
		case c.op == hylaOpBackwardLinear && part != nil:
			hylaVecAxpyRows(part, dp, sc.gyb, nc, v.phi[s*dp:e*dp], e-s)
		}
	}
}
