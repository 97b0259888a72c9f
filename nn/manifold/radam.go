package manifold

import (
	"fmt"
	"math"

	"github.com/hylaflow/hylaflow/nn/autodiff"
	"gonum.org/v1/gonum/mat"
)

// RiemannianAdam is Adam for a matrix whose rows are points of the
// Poincaré ball (Bécigneul & Ganea 2019, as geoopt and HGCN's
// optimizers/radam.py implement it): with t the step count,
//
//	g ← g + wd·p                                 (Euclidean gradient, L2)
//	r ← g / λ_p²                                 (Riemannian gradient)
//	m ← β1·m + (1−β1)·r
//	v ← β2·v + (1−β2)·λ_p²‖r‖²                   (one value per row)
//	p' ← proj(exp_p(−lr·√(1−β2^t)/(1−β1^t) · m/(√v + ε)))
//	m ← PTransp(p → p', m)
//
// HGCN's copy increments the step count twice per step (a slip that only
// changes the bias correction); this follows geoopt and counts once.
type RiemannianAdam struct {
	LR, Beta1, Beta2, Eps, WeightDecay float64
	C                                  float64 // the ball's curvature

	m *mat.Dense // first moment, n×d (a tangent vector at p)
	v *mat.Dense // second moment, n×1
	t int
}

// NewRiemannianAdam returns Riemannian Adam with PyTorch's defaults for an
// n×d parameter on the ball of curvature c.
func NewRiemannianAdam(lr, c float64, n, d int) *RiemannianAdam {
	return &RiemannianAdam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, C: c,
		m: mat.NewDense(n, d, nil), v: mat.NewDense(n, 1, nil)}
}

// Step updates p in place from its Euclidean gradient g. It returns an
// error (and leaves p unchanged) if the shapes differ or the update is
// not finite.
func (a *RiemannianAdam) Step(p, g *mat.Dense) error {
	pr, pc := p.Dims()
	mr, mc := a.m.Dims()
	if gr, gc := g.Dims(); pr != mr || pc != mc || gr != mr || gc != mc {
		return fmt.Errorf("manifold: RiemannianAdam.Step: parameter %d×%d and gradient %d×%d for a state of %d×%d", pr, pc, gr, gc, mr, mc)
	}
	if !(a.C > 0) {
		return fmt.Errorf("manifold: RiemannianAdam: curvature %v, want > 0", a.C)
	}
	a.t++
	var ball Poincare
	tp := autodiff.New(1)
	c := Scalar(tp, a.C)
	pn := tp.Const(p)
	gn := g
	if a.WeightDecay != 0 {
		var gw mat.Dense
		gw.Add(g, scaled(a.WeightDecay, p))
		gn = &gw
	}
	rg := ball.EgradToRgrad(tp, pn, tp.Const(gn), c).Value
	var m mat.Dense
	m.Add(scaled(a.Beta1, a.m), scaled(1-a.Beta1, rg))
	inner := ball.Inner(tp, pn, tp.Const(rg), tp.Const(rg), c).Value
	var v mat.Dense
	v.Add(scaled(a.Beta2, a.v), scaled(1-a.Beta2, inner))
	bc1 := 1 - math.Pow(a.Beta1, float64(a.t))
	bc2 := 1 - math.Pow(a.Beta2, float64(a.t))
	step := a.LR * math.Sqrt(bc2) / bc1
	dir := mat.NewDense(pr, pc, nil)
	for i := 0; i < pr; i++ {
		den := math.Sqrt(v.At(i, 0)) + a.Eps
		for j := 0; j < pc; j++ {
			dir.Set(i, j, -step*m.At(i, j)/den)
		}
	}
	next := ball.Proj(tp, ball.ExpMap(tp, tp.Const(dir), pn, c), c).Value
	moved := ball.PTransp(tp, pn, tp.Const(next), tp.Const(&m), c).Value
	if !finite(next) || !finite(moved) || !finite(&v) {
		return fmt.Errorf("manifold: RiemannianAdam step %d is not finite (learning rate too high?)", a.t)
	}
	p.Copy(next)
	a.m.Copy(moved)
	a.v.Copy(&v)
	return nil
}

func scaled(f float64, m mat.Matrix) *mat.Dense {
	var out mat.Dense
	out.Scale(f, m)
	return &out
}
