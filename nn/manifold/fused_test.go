package manifold

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/nn/autodiff"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

type binop func(tp *autodiff.Tape, a, b, c *autodiff.Node) *autodiff.Node

// fusedCases pairs each fused map with the composition it replaces.
func fusedCases() []struct {
	name       string
	fused, ref binop
	twoInputs  bool
} {
	var ball Poincare
	un := func(f func(*autodiff.Tape, *autodiff.Node, *autodiff.Node) *autodiff.Node) binop {
		return func(tp *autodiff.Tape, a, _, c *autodiff.Node) *autodiff.Node { return f(tp, a, c) }
	}
	return []struct {
		name       string
		fused, ref binop
		twoInputs  bool
	}{
		{"proj", un(ball.Proj), un(refProj), false},
		{"expmap0", un(ball.ExpMap0), un(refExpMap0), false},
		{"logmap0", un(ball.LogMap0), un(refLogMap0), false},
		{"mobius-add", ball.MobiusAdd, refMobiusAdd, true},
		{"sqdist", ball.SqDist, refSqDist, true},
	}
}

// TestFusedMatchesComposition checks every fused Poincaré map against the
// composition of elementary tape operations it replaced: the values are
// the same bits (the same arithmetic in the same order), the gradients in
// the points, a broadcast 1×d operand and a learnt curvature agree to
// 1e-12 (only the order of the sums differs; 1e-9 for the distance,
// steep at the boundary), at the origin, inside, near
// and beyond the boundary and for several curvatures.
func TestFusedMatchesComposition(t *testing.T) {
	for _, cv := range []float64{1, 0.3, 4} {
		rng := rand.New(rand.NewPCG(uint64(cv*10), 22))
		const d = 5
		fr := []float64{0, 0.2, 0.7, 0.99, 0.99999, 1.3, 3, 0.5}
		x := ballPoints(rng, cv, d, fr...)
		y := ballPoints(rng, cv, d, 0.4, 0.9, 0.1, 0.6, 0.3, 0.999, 0.2, 0)
		bias := randDense(rng, 1, d, 0.3)
		r := randDense(rng, len(fr), d, 1)
		rCol := randDense(rng, len(fr), 1, 1)
		for _, tc := range fusedCases() {
			for _, second := range []struct {
				name string
				m    *mat.Dense
			}{{"rows", y}, {"broadcast", bias}} {
				if !tc.twoInputs && second.name == "broadcast" {
					continue
				}
				name := fmt.Sprintf("c=%v %s/%s", cv, tc.name, second.name)
				run := func(f binop) (*mat.Dense, []*mat.Dense) {
					tp := autodiff.New(1)
					a, b := tp.Param(mat.DenseCopyOf(x)), tp.Param(mat.DenseCopyOf(second.m))
					c := tp.Param(mat.NewDense(1, 1, []float64{cv}))
					out := f(tp, a, b, c)
					proj := r
					if out.Cols() == 1 {
						proj = rCol
					}
					if err := tp.Backward(project(tp, out, proj)); err != nil {
						t.Fatal(err)
					}
					grads := []*mat.Dense{a.Grad, c.Grad}
					if tc.twoInputs {
						grads = append(grads, b.Grad)
					}
					return mat.DenseCopyOf(out.Value), grads
				}
				got, gg := run(tc.fused)
				want, wg := run(tc.ref)
				if !mat.Equal(got, want) {
					t.Errorf("%s: fused value differs from the composition:\n%v\nwant\n%v", name, mat.Formatted(got), mat.Formatted(want))
				}
				for k := range wg {
					if (gg[k] == nil) != (wg[k] == nil) {
						t.Errorf("%s: gradient %d: fused %v, composition %v", name, k, gg[k] != nil, wg[k] != nil)
						continue
					}
					if wg[k] != nil {
						// The distance's gradient at points on the boundary is
						// steep (artanh' ≈ 1e5 there): a looser bound.
						tol := 1e-12
						if tc.name == "sqdist" {
							tol = 1e-9
						}
						rowsNear(t, fmt.Sprintf("%s gradient %d", name, k), gg[k], wg[k], tol)
					}
				}
			}
		}
	}
}

// TestFusedWorkersBitIdentical runs the fused maps on more rows than a
// parallel block holds, with 1, 2 and 5 workers: the values and every
// gradient (the curvature's and a broadcast bias's are sums over all rows)
// must be the same bits.
func TestFusedWorkersBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 22))
	const n, d = 3*fuseBlock + 17, 4
	fr := make([]float64, n)
	for i := range fr {
		fr[i] = rng.Float64() * 1.2
	}
	x := ballPoints(rng, 0.7, d, fr...)
	y := ballPoints(rng, 0.7, d, fr...)
	bias := randDense(rng, 1, d, 0.3)
	r := randDense(rng, n, d, 1)
	var ri, ci []int
	for i := 0; i < n; i++ {
		ri, ci = append(ri, i, i, i), append(ci, i, (i+1)%n, (i+n-1)%n)
	}
	g, err := sparse.FromCOO(n, n, ri, ci, nil)
	if err != nil {
		t.Fatal(err)
	}
	ring := autodiff.NewSparse(sparse.RowNormalize(g))
	run := func(workers int) []*mat.Dense {
		var ball Poincare
		tp := autodiff.New(workers)
		a, b, bb := tp.Param(mat.DenseCopyOf(x)), tp.Param(mat.DenseCopyOf(y)), tp.Param(mat.DenseCopyOf(bias))
		c := tp.Param(mat.NewDense(1, 1, []float64{0.7}))
		h := ball.Proj(tp, ball.MobiusAdd(tp, ball.ExpMap0(tp, ball.LogMap0(tp, a, c), c), bb, c), c)
		// LGCN's maps on the same rows (a row-normalised ring for the centroid).
		var l Lorentz
		lz := l.Centroid(tp, ring, l.ExpMap0(tp, tp.ConcatCols(tp.Const(mat.NewDense(n, 1, nil)), a), c), c)
		loss := tp.Add(tp.Add(project(tp, h, r), tp.SumAll(ball.SqDist(tp, h, b, c))), tp.SumAll(l.LogMap0(tp, lz, c)))
		if err := tp.Backward(loss); err != nil {
			t.Fatal(err)
		}
		return []*mat.Dense{h.Value, a.Grad, b.Grad, bb.Grad, c.Grad, loss.Value}
	}
	want := run(1)
	for _, w := range []int{2, 5} {
		for k, m := range run(w) {
			if !mat.Equal(m, want[k]) {
				t.Errorf("%d workers: output %d differs from 1 worker's", w, k)
			}
		}
	}
	if math.IsNaN(want[4].At(0, 0)) {
		t.Fatal("curvature gradient NaN")
	}
}

// TestFusedLorentzMatchesComposition checks LGCN's fused maps against
// their compositions like TestFusedMatchesComposition: tangent vectors
// from 0 to beyond the sinh cut at 50 (so the renorm to 1000 acts), points
// near and far from the origin, a centroid over a random graph.
func TestFusedLorentzMatchesComposition(t *testing.T) {
	var l Lorentz
	for _, cv := range []float64{1, 0.4, 3} {
		rng := rand.New(rand.NewPCG(uint64(cv*10), 23))
		const d = 4
		v := tangent0(rng, d, 0, 1e-4, 0.3, 1.2, 2.5, 7, 60, 0.9)
		tp := autodiff.New(1)
		x := mat.DenseCopyOf(l.ExpMap0(tp, tp.Const(tangent0(rng, d, 0, 0.1, 0.5, 1.5, 3, 6, 0.2, 2)), Scalar(tp, cv)).Value)
		a := autodiff.NewSparse(sparse.RowNormalize(sparseGraph(rng, 8)))
		r := randDense(rng, 8, d+1, 1)
		for _, tc := range []struct {
			name       string
			in         *mat.Dense
			fused, ref func(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node
		}{
			{"expmap0", v, l.ExpMap0, refLorentzExpMap0},
			{"logmap0", x, l.LogMap0, refLorentzLogMap0},
			{"centroid", x, func(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node { return l.Centroid(tp, a, x, c) },
				func(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node { return refLorentzCentroid(tp, a, x, c) }},
		} {
			name := fmt.Sprintf("c=%v %s", cv, tc.name)
			run := func(f func(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node) (*mat.Dense, *mat.Dense, *mat.Dense) {
				tp := autodiff.New(1)
				xn := tp.Param(mat.DenseCopyOf(tc.in))
				c := tp.Param(mat.NewDense(1, 1, []float64{cv}))
				out := f(tp, xn, c)
				if err := tp.Backward(project(tp, out, r)); err != nil {
					t.Fatal(err)
				}
				return mat.DenseCopyOf(out.Value), xn.Grad, c.Grad
			}
			got, gx, gc := run(tc.fused)
			want, wx, wc := run(tc.ref)
			if !mat.Equal(got, want) {
				t.Errorf("%s: fused value differs from the composition:\n%v\nwant\n%v", name, mat.Formatted(got), mat.Formatted(want))
			}
			rowsNear(t, name+" gradient x", gx, wx, 1e-12)
			rowsNear(t, name+" gradient c", gc, wc, 1e-12)
		}
	}
}
