package autodiff

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// scaleRows is a Custom operation: each row of x times its entry of the
// column s (n×1), with its hand-written backward.
func scaleRows(tp *Tape, x, s *Node) *Node {
	r, c := x.Value.Dims()
	v := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j, e := range x.Value.RawRowView(i) {
			v.Set(i, j, e*s.Value.At(i, 0))
		}
	}
	return tp.Custom(v, func(out *Node) {
		for i := 0; i < r; i++ {
			g := out.Grad.RawRowView(i)
			if x.Needs() {
				gx := x.GradAcc().RawRowView(i)
				for j := range g {
					gx[j] += g[j] * s.Value.At(i, 0)
				}
			}
			if s.Needs() {
				var d float64
				for j, e := range x.Value.RawRowView(i) {
					d += g[j] * e
				}
				s.GradAcc().Set(i, 0, s.GradAcc().At(i, 0)+d)
			}
		}
	}, x, s)
}

// TestCustomGradients checks a Custom operation's gradients against
// finite differences, alone and composed with the built-in operations
// (its gradient must flow into nodes recorded before it), and that it is
// the same as the composed MulB.
func TestCustomGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	x, s, r := randDense(rng, 4, 3), randDense(rng, 4, 1), randDense(rng, 4, 3)
	checkGrad(t, "custom", []*mat.Dense{x, s}, func(tp *Tape, p []*Node) *Node {
		return project(tp, scaleRows(tp, tp.ReLU(p[0]), tp.Square(p[1])), r)
	})
	tp := New(1)
	a, b := scaleRows(tp, tp.Const(x), tp.Const(s)), tp.MulB(tp.Const(x), tp.Const(s))
	if !mat.Equal(a.Value, b.Value) {
		t.Fatalf("custom scaleRows %v, MulB %v", mat.Formatted(a.Value), mat.Formatted(b.Value))
	}
	if a.Needs() {
		t.Fatal("a Custom op of constants needs a gradient")
	}
}
