// Package manifold holds the hyperbolic geometry of the hyperbolic
// baselines (HNN, HGCN) as operations on an autodiff tape, so that every
// map has its gradient with respect to the points, the tangent vectors,
// the weights and the curvature: the Poincaré ball of curvature −c
// (points with c‖x‖² < 1) with Möbius addition, the Möbius matrix-vector
// product, exponential and logarithmic maps at the origin and at a point,
// parallel transport, the projection back into the ball and the distance,
// plus Riemannian Adam for parameters that live on the ball; and the
// hyperboloid model (Hyperboloid: Minkowski product, projection, exp/log
// maps at the origin, distance, HGCN's hyperboloid matrix product), the
// geometry of HGCN's Hyperboloid manifold and of LGCN.
//
// Conventions follow HGCN's code (HazyResearch/hgcn, manifolds/poincare.py)
// so that its hyper-parameters carry over: norms are clamped below at
// MinNorm = 1e−15 before they divide; points are projected to norm at most
// (1 − BallEps)/√c with BallEps = 1e−5 (its float64 value); tanh's argument
// is clamped to ±15 and artanh's to ±(1 − 1e−15) (autodiff.Tanh,
// autodiff.Artanh). With these guards no operation returns NaN or Inf for
// finite inputs and c > 0, even at the origin or on the boundary, and
// neither does its gradient; the tests check both, and check every
// gradient against finite differences.
//
// The maps that run over every node of a graph each epoch (Proj, ExpMap0,
// LogMap0, MobiusAdd, SqDist, and LGCN's ExpMap0, LogMap0, Centroid) are
// single row-parallel tape operations with hand-written gradients
// (fused.go, fused_lorentz.go); the others are compositions of the tape's
// elementary operations.
//
// The curvature c is a 1×1 node: a constant (Tape.Const) or a parameter
// (Tape.Param) when it is learnt, as HGCN's last layer and decoder do.
// Points are the rows of an n×d node; a 1×d operand broadcasts to every row.
package manifold

import (
	"math"

	"github.com/hylaflow/hylaflow/nn/autodiff"
	"gonum.org/v1/gonum/mat"
)

// MinNorm is the floor of a norm before it divides (HGCN's min_norm).
const MinNorm = 1e-15

// BallEps sets the projection radius (1 − BallEps)/√c (HGCN's eps for
// float64).
const BallEps = 1e-5

// Poincare is the Poincaré ball of curvature −c: {x : c‖x‖² < 1}.
type Poincare struct{}

func sqrtC(tp *autodiff.Tape, c *autodiff.Node) *autodiff.Node { return tp.Sqrt(c) }

func rowSq(tp *autodiff.Tape, x *autodiff.Node) *autodiff.Node { return tp.RowSum(tp.Square(x)) }

func rowDot(tp *autodiff.Tape, x, y *autodiff.Node) *autodiff.Node { return tp.RowSum(tp.MulB(x, y)) }

// Proj maps each row of x with norm above (1 − BallEps)/√c onto that
// radius and leaves the others unchanged.
func (Poincare) Proj(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node {
	return scaleMap(tp, x, c, projCoef)
}

// ExpMap0 is the exponential map at the origin,
// tanh(√c‖u‖)·u/(√c‖u‖).
func (Poincare) ExpMap0(tp *autodiff.Tape, u, c *autodiff.Node) *autodiff.Node {
	return scaleMap(tp, u, c, expCoef)
}

// LogMap0 is the logarithmic map at the origin,
// artanh(√c‖p‖)·p/(√c‖p‖).
func (Poincare) LogMap0(tp *autodiff.Tape, p, c *autodiff.Node) *autodiff.Node {
	return scaleMap(tp, p, c, logCoef)
}

// MobiusAdd is x ⊕_c y =
// ((1 + 2c⟨x,y⟩ + c‖y‖²)x + (1 − c‖x‖²)y) / (1 + 2c⟨x,y⟩ + c²‖x‖²‖y‖²),
// the denominator clamped below at MinNorm.
func (Poincare) MobiusAdd(tp *autodiff.Tape, x, y, c *autodiff.Node) *autodiff.Node {
	return mobiusAdd(tp, x, y, c)
}

// MobiusMatVec is the Möbius version of x·W (W is in×out):
// tanh(‖xW‖/‖x‖·artanh(√c‖x‖))·xW/(‖xW‖√c). A row whose xW is 0 maps to
// the origin, as in HGCN; HGCN also zeroes that row's gradient (a
// torch.where), whereas the clamped norms here give the limit of the
// gradient, xW's own (the finite differences' value). The weights'
// gradient is the same, both being zero for a zero input row.
func (Poincare) MobiusMatVec(tp *autodiff.Tape, w, x, c *autodiff.Node) *autodiff.Node {
	sc := sqrtC(tp, c)
	xn := tp.ClampMin(tp.RowNorm(x), MinNorm)
	mx := tp.MatMul(x, w)
	mxn := tp.ClampMin(tp.RowNorm(mx), MinNorm)
	t := tp.Tanh(tp.MulB(tp.DivB(mxn, xn), tp.Artanh(tp.MulB(sc, xn))))
	return tp.MulB(mx, tp.DivB(t, tp.MulB(mxn, sc)))
}

// lambda returns the conformal factor 2/(1 − c‖x‖²) (the denominator
// clamped at MinNorm) as an n×1 node. As in HGCN's _lambda_x, x's value is
// used as a constant: no gradient flows into x through λ (c's does).
func lambda(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node {
	r, _ := x.Value.Dims()
	sq := mat.NewDense(r, 1, nil)
	for i := 0; i < r; i++ {
		var s float64
		for _, v := range x.Value.RawRowView(i) {
			s += v * v
		}
		sq.Set(i, 0, s)
	}
	den := tp.ClampMin(tp.AddConst(tp.Scale(tp.MulB(c, tp.Const(sq)), -1), 1), MinNorm)
	return tp.DivB(tp.Const(mat.NewDense(1, 1, []float64{2})), den)
}

// Lambda returns the conformal factor λ_x = 2/(1 − c‖x‖²) of each row
// (n×1), with x treated as a constant.
func (Poincare) Lambda(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node {
	return lambda(tp, x, c)
}

// ExpMap is the exponential map at p: p ⊕ tanh(√c·λ_p‖u‖/2)·u/(√c‖u‖).
func (m Poincare) ExpMap(tp *autodiff.Tape, u, p, c *autodiff.Node) *autodiff.Node {
	sc := sqrtC(tp, c)
	un := tp.ClampMin(tp.RowNorm(u), MinNorm)
	arg := tp.Scale(tp.MulB(tp.MulB(sc, lambda(tp, p, c)), un), 0.5)
	second := tp.MulB(u, tp.DivB(tp.Tanh(arg), tp.MulB(sc, un)))
	return m.MobiusAdd(tp, p, second, c)
}

// LogMap is the logarithmic map at p1 of p2:
// 2/(√c·λ_p1)·artanh(√c‖−p1 ⊕ p2‖)·(−p1 ⊕ p2)/‖−p1 ⊕ p2‖.
func (m Poincare) LogMap(tp *autodiff.Tape, p1, p2, c *autodiff.Node) *autodiff.Node {
	sc := sqrtC(tp, c)
	sub := m.MobiusAdd(tp, tp.Scale(p1, -1), p2, c)
	sn := tp.ClampMin(tp.RowNorm(sub), MinNorm)
	coef := tp.DivB(tp.Scale(tp.Artanh(tp.MulB(sc, sn)), 2), tp.MulB(tp.MulB(sc, lambda(tp, p1, c)), sn))
	return tp.MulB(sub, coef)
}

// SqDist is the squared geodesic distance of each pair of rows,
// (2/√c·artanh(√c‖−p1 ⊕ p2‖))², n×1.
func (m Poincare) SqDist(tp *autodiff.Tape, p1, p2, c *autodiff.Node) *autodiff.Node {
	return distTail(tp, m.MobiusAdd(tp, tp.Scale(p1, -1), p2, c), c)
}

// gyration is gyr[u, v]w, the rotation that makes Möbius addition
// associative up to it (HGCN's _gyration).
func gyration(tp *autodiff.Tape, u, v, w, c *autodiff.Node) *autodiff.Node {
	u2, v2 := rowSq(tp, u), rowSq(tp, v)
	uv, uw, vw := rowDot(tp, u, v), rowDot(tp, u, w), rowDot(tp, v, w)
	c2 := tp.Square(c)
	// a = −c²⟨u,w⟩‖v‖² + c⟨v,w⟩ + 2c²⟨u,v⟩⟨v,w⟩
	a := tp.AddB(tp.AddB(tp.Scale(tp.MulB(c2, tp.MulB(uw, v2)), -1), tp.MulB(c, vw)),
		tp.Scale(tp.MulB(c2, tp.MulB(uv, vw)), 2))
	// b = −c²⟨v,w⟩‖u‖² − c⟨u,w⟩
	b := tp.SubB(tp.Scale(tp.MulB(c2, tp.MulB(vw, u2)), -1), tp.MulB(c, uw))
	// d = 1 + 2c⟨u,v⟩ + c²‖u‖²‖v‖²
	d := tp.AddConst(tp.AddB(tp.Scale(tp.MulB(c, uv), 2), tp.MulB(c2, tp.MulB(u2, v2))), 1)
	num := tp.Scale(tp.AddB(tp.MulB(a, u), tp.MulB(b, v)), 2)
	return tp.AddB(w, tp.DivB(num, tp.ClampMin(d, MinNorm)))
}

// PTransp transports the tangent vector u at x to y along the geodesic:
// gyr[y, −x]u · λ_x/λ_y.
func (Poincare) PTransp(tp *autodiff.Tape, x, y, u, c *autodiff.Node) *autodiff.Node {
	g := gyration(tp, y, tp.Scale(x, -1), u, c)
	return tp.MulB(g, tp.DivB(lambda(tp, x, c), lambda(tp, y, c)))
}

// EgradToRgrad converts a Euclidean gradient at p into the Riemannian one,
// g/λ_p².
func (Poincare) EgradToRgrad(tp *autodiff.Tape, p, g, c *autodiff.Node) *autodiff.Node {
	return tp.DivB(g, tp.Square(lambda(tp, p, c)))
}

// Inner is the Riemannian inner product at x, λ_x²⟨u, v⟩, n×1.
func (Poincare) Inner(tp *autodiff.Tape, x, u, v, c *autodiff.Node) *autodiff.Node {
	return tp.MulB(tp.Square(lambda(tp, x, c)), rowDot(tp, u, v))
}

// Scalar returns the 1×1 constant v (a fixed curvature).
func Scalar(tp *autodiff.Tape, v float64) *autodiff.Node {
	return tp.Const(mat.NewDense(1, 1, []float64{v}))
}

// finite reports whether every entry of m is finite.
func finite(m *mat.Dense) bool {
	r, _ := m.Dims()
	for i := 0; i < r; i++ {
		for _, v := range m.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}
