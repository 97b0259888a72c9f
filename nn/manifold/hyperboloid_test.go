package manifold

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/nn/autodiff"
	"gonum.org/v1/gonum/mat"
)

// tangent0 returns n tangent vectors at the hyperboloid's origin (first
// column 0) with the given norms.
func tangent0(rng *rand.Rand, d int, norms ...float64) *mat.Dense {
	u := mat.NewDense(len(norms), d+1, nil)
	for i, nrm := range norms {
		row := u.RawRowView(i)[1:]
		var s float64
		for j := range row {
			row[j] = rng.NormFloat64()
			s += row[j] * row[j]
		}
		for j := range row {
			row[j] *= nrm / math.Sqrt(s)
		}
	}
	return u
}

func TestHyperboloidGradients(t *testing.T) {
	var h Hyperboloid
	for _, cv := range []float64{1, 0.4, 2.5} {
		rng := rand.New(rand.NewPCG(uint64(cv*10), 8))
		const d = 3
		u := tangent0(rng, d, 0.3, 1.2, 2.5)
		v := tangent0(rng, d, 0.8, 0.5, 1.7)
		c := mat.NewDense(1, 1, []float64{cv})
		tp := autodiff.New(1)
		x := mat.DenseCopyOf(h.ExpMap0(tp, tp.Const(u), Scalar(tp, cv)).Value)
		y := mat.DenseCopyOf(h.ExpMap0(tp, tp.Const(v), Scalar(tp, cv)).Value)
		w := randDense(rng, d+1, d+1, 0.6)
		r := randDense(rng, 3, d+1, 1)
		rCol := randDense(rng, 3, 1, 1)
		rP := randDense(rng, 3, d, 1)
		for _, tc := range []struct {
			name   string
			params []*mat.Dense
			f      func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node
		}{
			{"proj", []*mat.Dense{x, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, h.Proj(tp, p[0], p[1]), r)
			}},
			{"expmap0", []*mat.Dense{u, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, h.ExpMap0(tp, p[0], p[1]), r)
			}},
			{"logmap0", []*mat.Dense{x, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, h.LogMap0(tp, p[0], p[1]), r)
			}},
			{"minkowski", []*mat.Dense{x, y}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, h.MinkowskiDot(tp, p[0], p[1]), rCol)
			}},
			{"sqdist", []*mat.Dense{x, y, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, h.SqDist(tp, p[0], p[1], p[2]), rCol)
			}},
			{"matvec", []*mat.Dense{w, x, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, h.MobiusMatVec(tp, p[0], p[1], p[2]), r)
			}},
			{"to-poincare", []*mat.Dense{x, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, h.ToPoincare(tp, p[0], p[1]), rP)
			}},
		} {
			checkGrad(t, tc.name, tc.params, 2e-5, tc.f)
		}
	}
}

func TestHyperboloidIdentities(t *testing.T) {
	var h Hyperboloid
	var ball Poincare
	for _, cv := range []float64{1, 0.25, 4} {
		rng := rand.New(rand.NewPCG(3, uint64(cv*100)))
		tp := autodiff.New(1)
		c := Scalar(tp, cv)
		u := tp.Const(tangent0(rng, 4, 0.2, 1, 3, 6))
		x := h.ExpMap0(tp, u, c)
		dot := h.MinkowskiDot(tp, x, x).Value
		for i := 0; i < 4; i++ {
			if !near(dot.At(i, 0), -1/cv, 1e-10) {
				t.Errorf("c=%v: ⟨x,x⟩_L = %v, want −1/c = %v", cv, dot.At(i, 0), -1/cv)
			}
		}
		rowsNear(t, "log0(exp0(u))", h.LogMap0(tp, x, c).Value, u.Value, 1e-9)
		// d(o, exp0(u)) = ‖u‖.
		origin := mat.NewDense(4, 5, nil)
		for i := 0; i < 4; i++ {
			origin.Set(i, 0, 1/math.Sqrt(cv))
		}
		sq := h.SqDist(tp, tp.Const(origin), x, c).Value
		for i := 0; i < 4; i++ {
			nu := mat.Norm(u.Value.RowView(i), 2)
			if !near(sq.At(i, 0), math.Min(nu*nu, 50), 1e-7) {
				t.Errorf("c=%v: d(o, exp0(u))² = %v, want %v", cv, sq.At(i, 0), nu*nu)
			}
		}
		// The two models agree: the hyperboloid's exp0 mapped to the ball
		// is the ball's exp0 of the same tangent vector, and distances match.
		ut := tp.Const(mat.DenseCopyOf(u.Value.Slice(0, 4, 1, 5)))
		// (The ball's exp0 at the origin, where λ = 2, covers twice the
		// distance: d(0, exp0(u)) = 2‖u‖ there, ‖u‖ on the hyperboloid.)
		rowsNear(t, "toPoincare(exp0(u))", h.ToPoincare(tp, x, c).Value, ball.ExpMap0(tp, tp.Scale(ut, 0.5), c).Value, 1e-9)
		y := h.ExpMap0(tp, tp.Const(tangent0(rng, 4, 0.5, 0.7, 1.1, 0.3)), c)
		dh := h.SqDist(tp, x, y, c).Value
		db := ball.SqDist(tp, h.ToPoincare(tp, x, c), h.ToPoincare(tp, y, c), c).Value
		for i := 0; i < 4; i++ {
			if dh.At(i, 0) < 50 && !near(dh.At(i, 0), db.At(i, 0), 1e-6) {
				t.Errorf("c=%v row %d: hyperboloid d² %v, ball d² %v", cv, i, dh.At(i, 0), db.At(i, 0))
			}
		}
	}
}

func TestHyperboloidNoNaN(t *testing.T) {
	var h Hyperboloid
	for _, cv := range []float64{1e-6, 1, 1e4} {
		tp := autodiff.New(1)
		u := tp.Param(mat.NewDense(4, 3, []float64{0, 0, 0, 5, 1e-300, 0, 0, 1e3, -1e3, 7, 40, 0}))
		x := tp.Param(mat.NewDense(4, 3, []float64{0, 0, 0, -5, 1, 1, 1e6, 1e3, 0, 1, 0, 0}))
		c := tp.Param(mat.NewDense(1, 1, []float64{cv}))
		for _, tc := range []struct {
			name string
			out  *autodiff.Node
		}{
			{"expmap0", h.ExpMap0(tp, u, c)},
			{"logmap0", h.LogMap0(tp, x, c)},
			{"proj", h.Proj(tp, x, c)},
			{"sqdist", h.SqDist(tp, h.Proj(tp, x, c), h.ExpMap0(tp, u, c), c)},
		} {
			if !finite(tc.out.Value) {
				t.Errorf("c=%g %s: value not finite: %v", cv, tc.name, mat.Formatted(tc.out.Value))
			}
			tp2 := tp
			if err := tp2.Backward(tp2.SumAll(tc.out)); err != nil {
				t.Fatal(err)
			}
			for _, n := range []*autodiff.Node{u, x, c} {
				if n.Grad != nil && !finite(n.Grad) {
					t.Errorf("c=%g %s: gradient not finite: %v", cv, tc.name, mat.Formatted(n.Grad))
				}
			}
		}
	}
}
