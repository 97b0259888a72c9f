package manifold

import (
	"math"

	"github.com/hylaflow/hylaflow/nn/autodiff"
	"gonum.org/v1/gonum/mat"
)

// Hyperboloid is the hyperboloid (Lorentz) model of curvature −c:
// {x ∈ R^{d+1} : ⟨x, x⟩_L = −K, x₀ > 0} with K = 1/c and the Minkowski
// product ⟨x, y⟩_L = −x₀y₀ + Σ_{i≥1} xᵢyᵢ, as HGCN's manifolds/hyperboloid.py
// (its float64 eps 1e−15, min_norm 1e−15, distances clamped at 50, cosh
// and sinh arguments at ±15, arcosh arguments at 1 + 1e−7 as its
// math_utils). The origin is (√K, 0, …, 0); the tangent space there is the
// vectors with u₀ = 0. Points are the rows of an n×(d+1) node.
type Hyperboloid struct{}

// HypEps is HGCN's float64 eps for the hyperboloid.
const HypEps = 1e-15

// ArcoshMin is the floor of arcosh's argument (HGCN's Arcosh clamps at 1 + 1e−7).
const ArcoshMin = 1 + 1e-7

func clamp15(v float64) float64 { return clampFinite(v, -15, 15) }

func cosh(tp *autodiff.Tape, x *autodiff.Node) *autodiff.Node {
	return tp.Map(x, func(v float64) float64 { return math.Cosh(clamp15(v)) }, func(x, _ float64) float64 {
		if x < -15 || x > 15 {
			return 0
		}
		return math.Sinh(x)
	})
}

func sinh(tp *autodiff.Tape, x *autodiff.Node) *autodiff.Node {
	return tp.Map(x, func(v float64) float64 { return math.Sinh(clamp15(v)) }, func(x, _ float64) float64 {
		if x < -15 || x > 15 {
			return 0
		}
		return math.Cosh(x)
	})
}

// arcosh is arcosh(max(x, ArcoshMin)) with derivative 1/√(x²−1) at the
// clamped value (HGCN's Arcosh: finite everywhere).
func arcosh(tp *autodiff.Tape, x *autodiff.Node) *autodiff.Node {
	return tp.Map(x, func(v float64) float64 { return math.Acosh(maxFinite(v, ArcoshMin)) }, func(x, _ float64) float64 {
		c := maxFinite(x, ArcoshMin)
		return 1 / math.Sqrt(c*c-1)
	})
}

func clampMax(tp *autodiff.Tape, x *autodiff.Node, hi float64) *autodiff.Node {
	return tp.Map(x, func(v float64) float64 { return minFinite(v, hi) }, func(x, _ float64) float64 {
		if x <= hi {
			return 1
		}
		return 0
	})
}

// space returns the columns 1..d of x (the space-like part).
func space(tp *autodiff.Tape, x *autodiff.Node) *autodiff.Node { return tp.ColSlice(x, 1, x.Cols()) }

// timeCol returns column 0 of x.
func timeCol(tp *autodiff.Tape, x *autodiff.Node) *autodiff.Node { return tp.ColSlice(x, 0, 1) }

func zeroCol(tp *autodiff.Tape, n int) *autodiff.Node { return tp.Const(mat.NewDense(n, 1, nil)) }

func sqrtK(tp *autodiff.Tape, c *autodiff.Node) *autodiff.Node {
	return tp.DivB(Scalar(tp, 1), tp.Sqrt(c))
}

// MinkowskiDot returns ⟨x, y⟩_L of each pair of rows (n×1).
func (Hyperboloid) MinkowskiDot(tp *autodiff.Tape, x, y *autodiff.Node) *autodiff.Node {
	return tp.SubB(rowDot(tp, x, y), tp.Scale(tp.MulB(timeCol(tp, x), timeCol(tp, y)), 2))
}

// Proj puts each row on the hyperboloid by recomputing its time
// coordinate: x₀ = √(max(K + ‖x_{1:}‖², eps)).
func (Hyperboloid) Proj(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node {
	y := space(tp, x)
	k := tp.DivB(Scalar(tp, 1), c)
	x0 := tp.Sqrt(tp.ClampMin(tp.AddB(k, rowSq(tp, y)), HypEps))
	return tp.ConcatCols(x0, y)
}

// ProjTan0 projects onto the tangent space at the origin (u₀ = 0).
func (Hyperboloid) ProjTan0(tp *autodiff.Tape, u *autodiff.Node) *autodiff.Node {
	return tp.ConcatCols(zeroCol(tp, u.Rows()), space(tp, u))
}

// ExpMap0 is the exponential map at the origin of u (u₀ ignored):
// (√K cosh θ, √K sinh θ · u_{1:}/‖u_{1:}‖) with θ = ‖u_{1:}‖/√K, projected.
func (m Hyperboloid) ExpMap0(tp *autodiff.Tape, u, c *autodiff.Node) *autodiff.Node {
	sk := sqrtK(tp, c)
	x := space(tp, u)
	xn := tp.ClampMin(tp.RowNorm(x), MinNorm)
	theta := tp.DivB(xn, sk)
	x0 := tp.MulB(sk, cosh(tp, theta))
	rest := tp.MulB(x, tp.DivB(tp.MulB(sk, sinh(tp, theta)), xn))
	return m.Proj(tp, tp.ConcatCols(x0, rest), c)
}

// LogMap0 is the logarithmic map at the origin:
// (0, √K arcosh(x₀/√K) · x_{1:}/‖x_{1:}‖).
func (Hyperboloid) LogMap0(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node {
	sk := sqrtK(tp, c)
	y := space(tp, x)
	yn := tp.ClampMin(tp.RowNorm(y), MinNorm)
	theta := tp.DivB(timeCol(tp, x), sk)
	rest := tp.MulB(y, tp.DivB(tp.MulB(sk, arcosh(tp, theta)), yn))
	return tp.ConcatCols(zeroCol(tp, x.Rows()), rest)
}

// SqDist is the squared geodesic distance K·arcosh(−⟨x, y⟩_L/K)², clamped
// at 50 (HGCN: so the Fermi–Dirac decoder never sees an overflow).
func (m Hyperboloid) SqDist(tp *autodiff.Tape, x, y, c *autodiff.Node) *autodiff.Node {
	k := tp.DivB(Scalar(tp, 1), c)
	theta := tp.DivB(tp.Scale(m.MinkowskiDot(tp, x, y), -1), k)
	return clampMax(tp, tp.MulB(k, tp.Square(arcosh(tp, theta))), 50)
}

// MobiusMatVec is HGCN's hyperboloid "Möbius" product: the log map at the
// origin, the matrix W ((d+1)×(e+1)) applied in the tangent space, the
// exponential map back.
func (m Hyperboloid) MobiusMatVec(tp *autodiff.Tape, w, x, c *autodiff.Node) *autodiff.Node {
	return m.ExpMap0(tp, tp.MatMul(m.LogMap0(tp, x, c), w), c)
}

// ToPoincare maps hyperboloid points to the Poincaré ball of the same
// curvature: √K·x_{1:}/(x₀ + √K).
func (Hyperboloid) ToPoincare(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node {
	sk := sqrtK(tp, c)
	return tp.MulB(space(tp, x), tp.DivB(sk, tp.AddB(timeCol(tp, x), sk)))
}
