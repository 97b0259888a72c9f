package manifold

import (
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/nn/autodiff"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// TestInputMatchesDense checks the sparse input path against the dense
// maps (ExpMap0, Proj, MobiusMatVec) for small and large feature rows,
// a zero row and curvatures around 1, and its gradients in W and c
// against finite differences.
func TestInputMatchesDense(t *testing.T) {
	var ball Poincare
	rng := rand.New(rand.NewPCG(9, 9))
	x := randDense(rng, 5, 6, 1)
	for j := 0; j < 6; j++ {
		x.Set(2, j, 0) // a featureless node (Citeseer has some)
		if j%2 == 0 {
			x.Set(0, j, 0)
		}
	}
	x.Scale(1, x)
	for j := 0; j < 6; j++ {
		x.Set(4, j, 40*x.At(4, j)) // beyond the ball after exp0: projected
	}
	in := NewInput(autodiff.NewSparse(sparse.FromDense(x)))
	w := randDense(rng, 6, 3, 0.5)
	r := randDense(rng, 5, 3, 1)
	for _, cv := range []float64{0.5, 1, 3} {
		tp := autodiff.New(1)
		c := Scalar(tp, cv)
		s := in.Scale(tp, c)
		dense := ball.Proj(tp, ball.ExpMap0(tp, tp.Const(x), c), c)
		rowsNear(t, "diag(s)·X", in.Dense(s.Value), dense.Value, 1e-13)
		got := in.MobiusMatVec(tp, tp.Const(w), s, c)
		want := ball.MobiusMatVec(tp, tp.Const(w), dense, c)
		rowsNear(t, "MobiusMatVec", got.Value, want.Value, 1e-12)
		cm := mat.NewDense(1, 1, []float64{cv})
		checkGrad(t, "input", []*mat.Dense{w, cm}, 2e-5, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
			return project(tp, in.MobiusMatVec(tp, p[0], in.Scale(tp, p[1]), p[1]), r)
		})
	}
}
