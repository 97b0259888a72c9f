package manifold

import (
	"math"

	"github.com/hylaflow/hylaflow/nn/autodiff"
	"gonum.org/v1/gonum/mat"
)

// The Poincaré maps as compositions of the tape's elementary operations,
// as they were before fused.go: the reference the fused operations are
// checked against (values and gradients).

func refProj(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node {
	norm := tp.ClampMin(tp.RowNorm(x), MinNorm)
	maxnorm := tp.DivB(tp.Const(mat.NewDense(1, 1, []float64{1 - BallEps})), sqrtC(tp, c))
	// maxnorm / max(norm, maxnorm) is 1 (with zero gradient) inside the
	// ball of radius maxnorm and maxnorm/norm outside.
	return tp.MulB(x, tp.DivB(maxnorm, tp.MaxB(norm, maxnorm)))
}

func refExpMap0(tp *autodiff.Tape, u, c *autodiff.Node) *autodiff.Node {
	sc := sqrtC(tp, c)
	scn := tp.MulB(sc, tp.ClampMin(tp.RowNorm(u), MinNorm))
	return tp.MulB(u, tp.DivB(tp.Tanh(scn), scn))
}

func refLogMap0(tp *autodiff.Tape, p, c *autodiff.Node) *autodiff.Node {
	sc := sqrtC(tp, c)
	scn := tp.MulB(sc, tp.ClampMin(tp.RowNorm(p), MinNorm))
	return tp.MulB(p, tp.DivB(tp.Artanh(scn), scn))
}

func refMobiusAdd(tp *autodiff.Tape, x, y, c *autodiff.Node) *autodiff.Node {
	x2, y2, xy := rowSq(tp, x), rowSq(tp, y), rowDot(tp, x, y)
	cxy2 := tp.MulB(c, tp.Scale(xy, 2))
	a := tp.AddConst(tp.AddB(cxy2, tp.MulB(c, y2)), 1)
	b := tp.AddConst(tp.Scale(tp.MulB(c, x2), -1), 1)
	num := tp.AddB(tp.MulB(a, x), tp.MulB(b, y))
	den := tp.AddConst(tp.AddB(cxy2, tp.MulB(tp.Square(c), tp.MulB(x2, y2))), 1)
	return tp.DivB(num, tp.ClampMin(den, MinNorm))
}

func refSqDist(tp *autodiff.Tape, p1, p2, c *autodiff.Node) *autodiff.Node {
	sc := sqrtC(tp, c)
	n := tp.RowNorm(refMobiusAdd(tp, tp.Scale(p1, -1), p2, c))
	d := tp.DivB(tp.Scale(tp.Artanh(tp.MulB(sc, n)), 2), sc)
	return tp.Square(d)
}
func refLorentzExpMap0(tp *autodiff.Tape, v, c *autodiff.Node) *autodiff.Node {
	t := space(tp, v)
	return Lorentz{}.Normalize(tp, tp.ConcatCols(zeroCol(tp, v.Rows()), tp.MulB(t, expScale(tp, rowSq(tp, t), c))), c)
}

func refLorentzLogMap0(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node {
	y := space(tp, x)
	return tp.ConcatCols(zeroCol(tp, x.Rows()), tp.MulB(y, logScale(tp, timeCol(tp, x), rowSq(tp, y), c)))
}

func refLorentzCentroid(tp *autodiff.Tape, a *autodiff.Sparse, x, c *autodiff.Node) *autodiff.Node {
	s := tp.SpMM(a, x)
	in := Lorentz{}.LInner(tp, s, s)
	abs := tp.Map(in, math.Abs, func(v, _ float64) float64 {
		if v < 0 {
			return -1
		}
		return 1
	})
	return tp.MulB(s, tp.DivB(tp.Sqrt(c), tp.Sqrt(tp.ClampMin(abs, MinNorm))))
}
