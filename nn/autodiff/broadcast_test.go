package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestBroadcastGradients(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		n, c := 2+rng.IntN(4), 2+rng.IntN(3)
		a := randDense(rng, n, c)
		col := randDense(rng, n, 1)
		row := randDense(rng, 1, c)
		one := mat.NewDense(1, 1, []float64{0.7 + rng.Float64()})
		pos := mat.NewDense(n, c, nil)
		for i, raw := 0, pos.RawMatrix().Data; i < len(raw); i++ {
			raw[i] = 0.5 + rng.Float64()
		}
		small := mat.NewDense(n, c, nil)
		for i, raw := 0, small.RawMatrix().Data; i < len(raw); i++ {
			raw[i] = 1.8*rng.Float64() - 0.9
		}
		r := randDense(rng, n, c)
		rc := randDense(rng, n, 1)
		idx := []int{n - 1, 0, n - 1, 1}
		rg := randDense(rng, len(idx), c)
		cases := []struct {
			name   string
			params []*mat.Dense
			f      func(tp *Tape, ps []*Node) *Node
		}{
			{"add-col", []*mat.Dense{a, col}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.AddB(ps[0], ps[1]), r) }},
			{"sub-row", []*mat.Dense{a, row}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.SubB(ps[1], ps[0]), r) }},
			{"mul-scalar", []*mat.Dense{a, one}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.MulB(ps[1], ps[0]), r) }},
			{"mul-col", []*mat.Dense{a, col}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.MulB(ps[0], ps[1]), r) }},
			{"div", []*mat.Dense{a, pos}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.DivB(ps[0], ps[1]), r) }},
			{"div-scalar", []*mat.Dense{a, one}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.DivB(ps[0], ps[1]), r) }},
			{"max", []*mat.Dense{a, col}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.MaxB(ps[0], ps[1]), r) }},
			{"sqrt-square", []*mat.Dense{pos}, func(tp *Tape, ps []*Node) *Node {
				return project(tp, tp.Square(tp.AddConst(tp.Sqrt(ps[0]), 0.3)), r)
			}},
			{"clampmin", []*mat.Dense{a}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.ClampMin(ps[0], 0.1), r) }},
			{"tanh", []*mat.Dense{a}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.Tanh(ps[0]), r) }},
			{"artanh", []*mat.Dense{small}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.Artanh(ps[0]), r) }},
			{"softplus", []*mat.Dense{a}, func(tp *Tape, ps []*Node) *Node {
				return project(tp, tp.Softplus(tp.Scale(ps[0], 30)), r)
			}},
			{"rowsum", []*mat.Dense{a}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.RowSum(ps[0]), rc) }},
			{"rownorm", []*mat.Dense{a}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.RowNorm(ps[0]), rc) }},
			{"meanall", []*mat.Dense{a}, func(tp *Tape, ps []*Node) *Node { return tp.MeanAll(tp.Square(ps[0])) }},
			{"gather", []*mat.Dense{a}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.GatherRows(ps[0], idx), rg) }},
			{"transpose", []*mat.Dense{a}, func(tp *Tape, ps []*Node) *Node {
				return project(tp, tp.Transpose(ps[0]), mat.DenseCopyOf(r.T()))
			}},
			{"map", []*mat.Dense{a}, func(tp *Tape, ps []*Node) *Node {
				return project(tp, tp.Map(ps[0], math.Sin, func(x, _ float64) float64 { return math.Cos(x) }), r)
			}},
		}
		for _, tc := range cases {
			checkGrad(t, tc.name, tc.params, tc.f)
		}
	}
}

func TestBroadcastValuesAndGuards(t *testing.T) {
	tp := New(1)
	a := tp.Const(mat.NewDense(2, 2, []float64{1, 2, 3, 4}))
	col := tp.Const(mat.NewDense(2, 1, []float64{10, 20}))
	row := tp.Const(mat.NewDense(1, 2, []float64{-1, 1}))
	for _, tc := range []struct {
		name string
		got  *Node
		want []float64
	}{
		{"add-col", tp.AddB(a, col), []float64{11, 12, 23, 24}},
		{"mul-row", tp.MulB(a, row), []float64{-1, 2, -3, 4}},
		{"div-col", tp.DivB(a, col), []float64{0.1, 0.2, 0.15, 0.2}},
		{"max-row", tp.MaxB(row, tp.Const(mat.NewDense(2, 1, []float64{0, 2}))), []float64{0, 1, 2, 2}},
		{"rownorm", tp.RowNorm(tp.Const(mat.NewDense(2, 2, []float64{3, 4, 0, 0}))), []float64{5, 0}},
		{"rowsum", tp.RowSum(a), []float64{3, 7}},
		{"gather", tp.GatherRows(a, []int{1, 1, 0}), []float64{3, 4, 3, 4, 1, 2}},
		{"tanh-clamped", tp.Tanh(tp.Const(mat.NewDense(1, 2, []float64{1e300, -1e300}))), []float64{math.Tanh(15), -math.Tanh(15)}},
		{"artanh-clamped", tp.Artanh(tp.Const(mat.NewDense(1, 2, []float64{1, -5}))), []float64{math.Atanh(ArtanhClamp), -math.Atanh(ArtanhClamp)}},
		{"softplus-large", tp.Softplus(tp.Const(mat.NewDense(1, 2, []float64{800, -800}))), []float64{800, 0}},
	} {
		got := tc.got.Value.RawMatrix().Data
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d values, want %d", tc.name, len(got), len(tc.want))
			continue
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12*math.Max(1, math.Abs(tc.want[i])) {
				t.Errorf("%s: value %d is %v, want %v", tc.name, i, got[i], tc.want[i])
			}
		}
	}
	// The gradient of a zero row's norm is zero, not NaN.
	x := mat.NewDense(1, 3, nil)
	tp = New(1)
	p := tp.Param(x)
	if err := tp.Backward(tp.SumAll(tp.RowNorm(p))); err != nil {
		t.Fatal(err)
	}
	for _, g := range p.Grad.RawMatrix().Data {
		if g != 0 {
			t.Fatalf("gradient of ‖0‖ = %v, want 0", g)
		}
	}
	// Shapes that do not broadcast panic with the shapes in the message.
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("2×2 + 3×1: no panic")
		}
	}()
	tp.AddB(a, tp.Const(mat.NewDense(3, 1, nil)))
}
