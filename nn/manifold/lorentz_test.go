package manifold

import (
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/nn/autodiff"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

func TestLorentzGradients(t *testing.T) {
	var l Lorentz
	for _, cv := range []float64{1, 0.5, 3} {
		rng := rand.New(rand.NewPCG(uint64(cv*10), 9))
		const d = 3
		v := tangent0(rng, d, 0.3, 1.2, 2.5, 0.7)
		tp := autodiff.New(1)
		x := mat.DenseCopyOf(l.ExpMap0(tp, tp.Const(v), Scalar(tp, cv)).Value)
		y := mat.DenseCopyOf(l.ExpMap0(tp, tp.Const(tangent0(rng, d, 0.8, 0.5, 1.7, 0.2)), Scalar(tp, cv)).Value)
		c := mat.NewDense(1, 1, []float64{cv})
		g := sparse.RowNormalize(sparseGraph(rng, 4))
		a := autodiff.NewSparse(g)
		norms := mat.NewDense(4, 1, []float64{0.5, 2, 0.01, 7})
		r := randDense(rng, 4, d+1, 1)
		rCol := randDense(rng, 4, 1, 1)
		for _, tc := range []struct {
			name   string
			params []*mat.Dense
			f      func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node
		}{
			{"normalize", []*mat.Dense{x, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, l.Normalize(tp, tp.Scale(p[0], 1.3), p[1]), r)
			}},
			{"expmap0", []*mat.Dense{v, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, l.ExpMap0(tp, p[0], p[1]), r)
			}},
			{"logmap0", []*mat.Dense{x, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, l.LogMap0(tp, p[0], p[1]), r)
			}},
			{"centroid", []*mat.Dense{x, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, l.Centroid(tp, a, p[0], p[1]), r)
			}},
			{"sqdist", []*mat.Dense{x, y, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, l.SqDist(tp, p[0], p[1], p[2]), rCol)
			}},
			{"sparse-tangent", []*mat.Dense{norms, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, l.SparseTangent(tp, p[0], p[1]), rCol)
			}},
		} {
			checkGrad(t, tc.name, tc.params, 2e-5, tc.f)
		}
	}
}

// sparseGraph returns an n×n graph with self loops and a ring.
func sparseGraph(rng *rand.Rand, n int) *sparse.CSR {
	var ri, ci []int
	var v []float64
	for i := 0; i < n; i++ {
		ri, ci, v = append(ri, i, i), append(ci, i, (i+1)%n), append(v, 1, 0.5+rng.Float64())
	}
	g, err := sparse.FromCOO(n, n, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return g
}

func TestLorentzIdentities(t *testing.T) {
	var l Lorentz
	for _, cv := range []float64{1, 0.25, 4} {
		rng := rand.New(rand.NewPCG(2, uint64(cv*100)))
		tp := autodiff.New(1)
		c := Scalar(tp, cv)
		// Norms whose image stays below the renorm bound (space part ≤ 1000).
		v := tp.Const(tangent0(rng, 4, 0.2, 1, 2, 3))
		x := l.ExpMap0(tp, v, c)
		in := l.LInner(tp, x, x).Value
		for i := 0; i < 4; i++ {
			if !near(in.At(i, 0), -cv, 1e-9) {
				t.Errorf("β=%v: ⟨x,x⟩_L = %v, want −β", cv, in.At(i, 0))
			}
		}
		// LGCN's eps (1e−8 under the square roots) bounds the round trip's accuracy.
		rowsNear(t, "log0(exp0(v))", l.LogMap0(tp, x, c).Value, v.Value, 1e-6)
		// The centroid of points lies on the hyperboloid.
		g := autodiff.NewSparse(sparse.RowNormalize(sparseGraph(rng, 4)))
		ce := l.Centroid(tp, g, x, c)
		in = l.LInner(tp, ce, ce).Value
		for i := 0; i < 4; i++ {
			if !near(in.At(i, 0), -cv, 1e-9) {
				t.Errorf("β=%v: centroid ⟨x,x⟩_L = %v, want −β", cv, in.At(i, 0))
			}
		}
		// The sparse input path equals the dense maps.
		xs := mat.NewDense(3, 5, []float64{1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 300, -400, 0, 1200, 5})
		norms := mat.NewDense(3, 1, nil)
		for i := 0; i < 3; i++ {
			norms.Set(i, 0, mat.Norm(xs.RowView(i), 2))
		}
		s := l.SparseTangent(tp, tp.Const(norms), c).Value
		full := mat.NewDense(3, 6, nil)
		full.Slice(0, 3, 1, 6).(*mat.Dense).Copy(xs)
		dense := l.LogMap0(tp, l.ExpMap0(tp, tp.Const(full), c), c).Value
		for i := 0; i < 3; i++ {
			for j := 0; j < 5; j++ {
				if got, want := s.At(i, 0)*xs.At(i, j), dense.At(i, j+1); !near(got, want, 1e-9) {
					t.Errorf("β=%v: sparse tangent (%d,%d) = %v, dense %v", cv, i, j, got, want)
				}
			}
		}
	}
}

func TestLorentzNoNaN(t *testing.T) {
	var l Lorentz
	for _, cv := range []float64{1e-6, 1, 1e4} {
		tp := autodiff.New(1)
		v := tp.Param(mat.NewDense(4, 3, []float64{0, 0, 0, 5, 1e-300, 0, 0, 1e3, -1e3, 7, 40, 0}))
		x := tp.Param(mat.NewDense(4, 3, []float64{0, 0, 0, -5, 1, 1, 1e6, 1e3, 0, 1, 0, 0}))
		c := tp.Param(mat.NewDense(1, 1, []float64{cv}))
		a := autodiff.NewSparse(sparse.RowNormalize(sparseGraph(rand.New(rand.NewPCG(1, 1)), 4)))
		for _, tc := range []struct {
			name string
			out  *autodiff.Node
		}{
			{"expmap0", l.ExpMap0(tp, v, c)},
			{"logmap0", l.LogMap0(tp, l.Normalize(tp, x, c), c)},
			{"centroid", l.Centroid(tp, a, l.Normalize(tp, x, c), c)},
			{"sqdist", l.SqDist(tp, l.Normalize(tp, x, c), l.ExpMap0(tp, v, c), c)},
			{"sparse-tangent", l.SparseTangent(tp, tp.Const(mat.NewDense(4, 1, []float64{0, 1e-300, 1e5, 3})), c)},
		} {
			if !finite(tc.out.Value) {
				t.Errorf("β=%g %s: value not finite: %v", cv, tc.name, mat.Formatted(tc.out.Value))
			}
			if err := tp.Backward(tp.SumAll(tc.out)); err != nil {
				t.Fatal(err)
			}
			for _, n := range []*autodiff.Node{v, x, c} {
				if n.Grad != nil && !finite(n.Grad) {
					t.Errorf("β=%g %s: gradient not finite", cv, tc.name)
				}
			}
		}
	}
}
