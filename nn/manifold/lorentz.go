package manifold

import (
	"github.com/hylaflow/hylaflow/nn/autodiff"
)

// Lorentz is the hyperboloid as LGCN's code (Zhang et al. 2021,
// ydzhang-stormstout/LGCN, manifolds/lorentzian.py) parametrises it:
// {x : −x₀² + Σ_{i≥1} xᵢ² = −β, x₀ > 0}, curvature −1/β, with its own
// guards (eps 1e−8 inside square roots and arcosh, tangent norms at least
// 1e−3 and at most 50, space parts renormed to at most 1000). Here β is
// the 1×1 node c of the methods, LGCN's "c". The origin is (√β, 0, …, 0).
type Lorentz struct{}

// LorentzEps is LGCN's float64 eps.
const LorentzEps = 1e-8

// LInner returns the Lorentzian inner product −x₀y₀ + Σ xᵢyᵢ of each pair
// of rows (n×1).
func (Lorentz) LInner(tp *autodiff.Tape, x, y *autodiff.Node) *autodiff.Node {
	return tp.SubB(rowDot(tp, x, y), tp.Scale(tp.MulB(timeCol(tp, x), timeCol(tp, y)), 2))
}

// Normalize puts rows on the hyperboloid: the space part renormed to at
// most 1000, x₀ = √(β + ‖x_{1:}‖²) (LGCN's normalize).
func (Lorentz) Normalize(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node {
	y := space(tp, x)
	n := tp.RowNorm(y)
	// renorm(p=2, maxnorm=1000): rows above 1000 scaled to 1000 (PyTorch
	// scales by maxnorm/(norm + 1e−7)).
	scale := tp.Map(n, renorm, renormGrad)
	y = tp.MulB(y, scale)
	x0 := tp.Sqrt(tp.AddB(c, rowSq(tp, y)))
	return tp.ConcatCols(x0, y)
}

// ExpMap0 maps a tangent vector at the origin (its first coordinate is
// ignored: LGCN normalises it to the tangent space first) onto the
// hyperboloid: (·, √β sinh(‖v‖/√β)·v/‖v‖) normalised, with
// ‖v‖ = √(max(‖v_{1:}‖² + 1e−8, 1e−6)) cut at 50 inside sinh.
func (m Lorentz) ExpMap0(tp *autodiff.Tape, v, c *autodiff.Node) *autodiff.Node {
	return lorentzExp0(tp, v, c)
}

// expScale is √β·sinh(min(n, 50)/√β)/n for the tangent norm n of the
// squared norms sq (n×1): the factor ExpMap0 applies to the space part.
func expScale(tp *autodiff.Tape, sq, c *autodiff.Node) *autodiff.Node {
	sc := tp.Sqrt(c)
	n := tp.Sqrt(tp.ClampMin(tp.AddConst(sq, LorentzEps), 1e-6))
	cut := clampMax(tp, n, 50)
	return tp.DivB(tp.MulB(sc, sinh(tp, tp.DivB(cut, sc))), n)
}

// LogMap0 is LGCN's log map at the origin:
// (0, √β·arcosh(x₀/√β + 1e−8)·x_{1:}/√(‖x_{1:}‖² + 1e−8)).
func (Lorentz) LogMap0(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node {
	return lorentzLog0(tp, x, c)
}

func logScale(tp *autodiff.Tape, x0, sq, c *autodiff.Node) *autodiff.Node {
	sc := tp.Sqrt(c)
	dist := tp.MulB(sc, arcosh(tp, tp.AddConst(tp.DivB(x0, sc), LorentzEps)))
	return tp.DivB(dist, tp.Sqrt(tp.AddConst(sq, LorentzEps)))
}

// Centroid is LGCN's aggregation: s = A·x, then √β·s/√|⟨s, s⟩_L| (the
// Lorentzian centroid of the neighbours weighted by A's rows; the
// denominator is clamped at 1e−15 so an empty row cannot divide by 0).
func (m Lorentz) Centroid(tp *autodiff.Tape, a *autodiff.Sparse, x, c *autodiff.Node) *autodiff.Node {
	return lorentzCentroid(tp, tp.SpMM(a, x), c)
}

// SqDist is LGCN's squared Lorentzian distance −2(β + ⟨x, y⟩_L), clamped
// to [1e−8, 50].
func (m Lorentz) SqDist(tp *autodiff.Tape, x, y, c *autodiff.Node) *autodiff.Node {
	d := tp.Scale(tp.AddB(c, m.LInner(tp, x, y)), -2)
	return clampMax(tp, tp.ClampMin(d, LorentzEps), 50)
}

// SparseTangent returns the column s (n×1) with LogMap0(ExpMap0((0, X)))
// = (0, diag(s)·X) for fixed features X with row norms norms (n×1 const):
// LGCN's input map followed by its first layer's log map, without
// materialising X densely.
func (m Lorentz) SparseTangent(tp *autodiff.Tape, norms, c *autodiff.Node) *autodiff.Node {
	sq := tp.Square(norms)
	e := expScale(tp, sq, c)            // space part after exp0: e·X
	en := tp.MulB(e, norms)             // its norm
	r := tp.Map(en, renorm, renormGrad) // renorm to 1000
	s1 := tp.MulB(e, r)
	ysq := tp.Square(tp.MulB(s1, norms))
	x0 := tp.Sqrt(tp.AddB(c, ysq))
	return tp.MulB(s1, logScale(tp, x0, ysq, c))
}

// ToPoincare maps points to the Poincaré ball of curvature −1/β:
// √β·x_{1:}/(x₀ + √β).
func (Lorentz) ToPoincare(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node {
	sc := tp.Sqrt(c)
	return tp.MulB(space(tp, x), tp.DivB(sc, tp.AddB(timeCol(tp, x), sc)))
}
