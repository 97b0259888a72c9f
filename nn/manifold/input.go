package manifold

import (
	"math"

	"github.com/hylaflow/hylaflow/nn/autodiff"
	"gonum.org/v1/gonum/mat"
)

// Input is a fixed sparse feature matrix X mapped onto the ball,
// proj(exp0(X)), without materialising it densely: exp0 and the projection
// scale each row, so the mapped matrix is diag(s)·X with s a column that
// depends only on the rows' norms and c. HGCN and HNN start with this map;
// the first layer's Möbius product then needs X·W (a sparse product) and
// the scaled norms, which keeps Citeseer's 3,703 and Cora's 1,433 feature
// columns sparse through training.
type Input struct {
	X     *autodiff.Sparse
	norms *mat.Dense // ‖X_i‖, n×1
}

// NewInput wraps the features x (its transpose is computed once).
func NewInput(x *autodiff.Sparse) *Input {
	n := mat.NewDense(max(x.A.Rows, 1), 1, nil)
	for i := 0; i < x.A.Rows; i++ {
		var s float64
		for k := x.A.Indptr[i]; k < x.A.Indptr[i+1]; k++ {
			s += x.A.Data[k] * x.A.Data[k]
		}
		n.Set(i, 0, math.Sqrt(s))
	}
	return &Input{X: x, norms: n}
}

// Norms returns the rows' norms ‖X_i‖ (n×1).
func (in *Input) Norms() *mat.Dense { return in.norms }

// Scale returns s (n×1) with proj(exp0(X)) = diag(s)·X on the ball of
// curvature c (Poincare.ExpMap0 then Poincare.Proj, row by row).
func (in *Input) Scale(tp *autodiff.Tape, c *autodiff.Node) *autodiff.Node {
	norms := tp.Const(in.norms)
	sc := sqrtC(tp, c)
	scn := tp.MulB(sc, tp.ClampMin(norms, MinNorm))
	s1 := tp.DivB(tp.Tanh(scn), scn)
	after := tp.ClampMin(tp.MulB(s1, norms), MinNorm)
	maxnorm := tp.DivB(Scalar(tp, 1-BallEps), sc)
	return tp.MulB(s1, tp.DivB(maxnorm, tp.MaxB(after, maxnorm)))
}

// MobiusMatVec is Poincare.MobiusMatVec(w, diag(s)·X, c) computed from the
// sparse product X·W: diag(s)·X·W and ‖diag(s)·X‖ = s·‖X‖.
func (in *Input) MobiusMatVec(tp *autodiff.Tape, w, s, c *autodiff.Node) *autodiff.Node {
	sc := sqrtC(tp, c)
	xn := tp.ClampMin(tp.MulB(s, tp.Const(in.norms)), MinNorm)
	mx := tp.MulB(tp.SpMM(in.X, w), s)
	mxn := tp.ClampMin(tp.RowNorm(mx), MinNorm)
	t := tp.Tanh(tp.MulB(tp.DivB(mxn, xn), tp.Artanh(tp.MulB(sc, xn))))
	return tp.MulB(mx, tp.DivB(t, tp.MulB(mxn, sc)))
}

// Dense returns diag(s)·X as a dense matrix (for tests and small inputs).
func (in *Input) Dense(s *mat.Dense) *mat.Dense {
	x := in.X.A
	out := mat.NewDense(x.Rows, x.Cols, nil)
	for i := 0; i < x.Rows; i++ {
		for k := x.Indptr[i]; k < x.Indptr[i+1]; k++ {
			out.Set(i, int(x.Indices[k]), s.At(i, 0)*x.Data[k])
		}
	}
	return out
}
