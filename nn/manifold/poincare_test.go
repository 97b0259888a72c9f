package manifold

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/nn/autodiff"
	"gonum.org/v1/gonum/mat"
)

// project returns Σ x∘r (a scalar whose gradient with respect to x is r),
// built from tape operations.
func project(tp *autodiff.Tape, x *autodiff.Node, r *mat.Dense) *autodiff.Node {
	return tp.SumAll(tp.MulB(x, tp.Const(r)))
}

func randDense(rng *rand.Rand, r, c int, scale float64) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i, raw := 0, m.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = scale * rng.NormFloat64()
	}
	return m
}

// ballPoints returns n points of the ball of curvature c with the given
// norms as fractions of the radius 1/√c (0 gives the origin).
func ballPoints(rng *rand.Rand, c float64, d int, fracs ...float64) *mat.Dense {
	m := mat.NewDense(len(fracs), d, nil)
	for i, f := range fracs {
		row := m.RawRowView(i)
		var s float64
		for j := range row {
			row[j] = rng.NormFloat64()
			s += row[j] * row[j]
		}
		for j := range row {
			row[j] *= f / math.Sqrt(c) / math.Sqrt(s)
		}
	}
	return m
}

// checkGrad compares Backward's gradients with central finite differences;
// relTol is relative to max(1, |fd|).
func checkGrad(t *testing.T, name string, params []*mat.Dense, relTol float64, f func(tp *autodiff.Tape, ps []*autodiff.Node) *autodiff.Node) {
	t.Helper()
	tp := autodiff.New(1)
	nodes := make([]*autodiff.Node, len(params))
	for i, p := range params {
		nodes[i] = tp.Param(p)
	}
	loss := f(tp, nodes)
	if err := tp.Backward(loss); err != nil {
		t.Fatal(err)
	}
	eval := func() float64 {
		tp := autodiff.New(1)
		ns := make([]*autodiff.Node, len(params))
		for i, p := range params {
			ns[i] = tp.Param(p)
		}
		return f(tp, ns).Scalar()
	}
	checked := 0
	for pi, p := range params {
		raw := p.RawMatrix().Data
		for k := range raw {
			old := raw[k]
			h := 1e-7 * math.Max(1, math.Abs(old))
			raw[k] = old + h
			up := eval()
			raw[k] = old - h
			down := eval()
			raw[k] = old
			want := (up - down) / (2 * h)
			var got float64
			if g := nodes[pi].Grad; g != nil {
				got = g.RawMatrix().Data[k]
			}
			if math.IsNaN(got) || math.IsInf(got, 0) {
				t.Errorf("%s: parameter %d entry %d: gradient %v", name, pi, k, got)
			} else if math.Abs(got-want) > relTol*math.Max(1, math.Abs(want)) {
				t.Errorf("%s: parameter %d entry %d: gradient %.9g, finite difference %.9g", name, pi, k, got, want)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatalf("%s: no entries checked", name)
	}
}

func TestPoincareGradients(t *testing.T) {
	var ball Poincare
	for _, geom := range []struct {
		name  string
		c     float64
		fracs []float64 // norms of the points as fractions of 1/√c
		tol   float64
	}{
		{"interior", 1, []float64{0.1, 0.5, 0.7}, 2e-5},
		{"curvature 0.3", 0.3, []float64{0.2, 0.6, 0.4}, 2e-5},
		{"curvature 2.5", 2.5, []float64{0.05, 0.3, 0.6}, 2e-5},
		// Near the boundary the maps are steep (artanh' ~ 1/(1−r²)), so
		// the finite differences lose digits: a looser tolerance.
		{"near boundary", 1, []float64{0.99, 0.995, 0.9}, 1e-3},
		{"at the origin", 1, []float64{0, 0.3, 0}, 2e-5},
	} {
		rng := rand.New(rand.NewPCG(uint64(len(geom.name)), 3))
		const d, out = 3, 2
		x := ballPoints(rng, geom.c, d, geom.fracs...)
		y := ballPoints(rng, geom.c, d, 0.4, 0.2, 0.5)
		u := randDense(rng, len(geom.fracs), d, 0.5)
		if geom.name == "at the origin" {
			u.Zero()
			u.Set(1, 0, 0.3)
		}
		w := randDense(rng, d, out, 0.7)
		bias := randDense(rng, 1, d, 0.2)
		c := mat.NewDense(1, 1, []float64{geom.c})
		n := len(geom.fracs)
		r := randDense(rng, n, d, 1)
		rOut := randDense(rng, n, out, 1)
		rCol := randDense(rng, n, 1, 1)
		cases := []struct {
			name   string
			params []*mat.Dense
			f      func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node
		}{
			{"proj", []*mat.Dense{x, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, ball.Proj(tp, tp.Scale(p[0], 1.5), p[1]), r)
			}},
			{"expmap0", []*mat.Dense{u, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, ball.ExpMap0(tp, p[0], p[1]), r)
			}},
			{"logmap0", []*mat.Dense{x, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, ball.LogMap0(tp, p[0], p[1]), r)
			}},
			{"mobius-add", []*mat.Dense{x, y, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, ball.MobiusAdd(tp, p[0], p[1], p[2]), r)
			}},
			{"mobius-add-bias", []*mat.Dense{x, bias, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, ball.MobiusAdd(tp, p[0], ball.ExpMap0(tp, p[1], p[2]), p[2]), r)
			}},
			{"mobius-matvec", []*mat.Dense{w, x, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, ball.MobiusMatVec(tp, p[0], p[1], p[2]), rOut)
			}},
			{"expmap", []*mat.Dense{u, y, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, ball.ExpMap(tp, p[0], p[1], p[2]), r)
			}},
			{"logmap", []*mat.Dense{y, x, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, ball.LogMap(tp, p[0], p[1], p[2]), r)
			}},
			{"sqdist", []*mat.Dense{x, y, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, ball.SqDist(tp, p[0], p[1], p[2]), rCol)
			}},
			{"ptransp", []*mat.Dense{y, x, u, c}, func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
				return project(tp, ball.PTransp(tp, p[0], p[1], p[2], p[3]), r)
			}},
		}
		for _, tc := range cases {
			// λ treats its point as a constant (HGCN's x.data), so the
			// maps that use it are checked with respect to the other
			// operands only.
			params := tc.params
			switch tc.name {
			case "expmap":
				params = []*mat.Dense{u, c}
			case "logmap":
				params = []*mat.Dense{x, c}
			case "ptransp":
				params = []*mat.Dense{u}
			}
			f := tc.f
			if len(params) != len(tc.params) {
				all, sub := tc.params, params
				f = func(tp *autodiff.Tape, p []*autodiff.Node) *autodiff.Node {
					nodes := make([]*autodiff.Node, len(all))
					k := 0
					for i, m := range all {
						if k < len(sub) && m == sub[k] {
							nodes[i] = p[k]
							k++
						} else {
							nodes[i] = tp.Const(m)
						}
					}
					return tc.f(tp, nodes)
				}
			}
			checkGrad(t, geom.name+"/"+tc.name, params, geom.tol, f)
		}
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func rowsNear(t *testing.T, name string, got, want *mat.Dense, tol float64) {
	t.Helper()
	r, c := want.Dims()
	gr, gc := got.Dims()
	if gr != r || gc != c {
		t.Fatalf("%s: %d×%d, want %d×%d", name, gr, gc, r, c)
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if !near(got.At(i, j), want.At(i, j), tol) {
				t.Errorf("%s: (%d, %d) = %.12g, want %.12g", name, i, j, got.At(i, j), want.At(i, j))
			}
		}
	}
}

func TestPoincareIdentities(t *testing.T) {
	var ball Poincare
	for _, c := range []float64{1, 0.25, 4} {
		rng := rand.New(rand.NewPCG(7, uint64(c*100)))
		tp := autodiff.New(1)
		cn := Scalar(tp, c)
		x := tp.Const(ballPoints(rng, c, 4, 0.3, 0.8, 0.95, 0.5))
		y := tp.Const(ballPoints(rng, c, 4, 0.6, 0.1, 0.4, 0.9))
		u := tp.Const(randDense(rng, 4, 4, 0.8))
		zero := tp.Const(mat.NewDense(4, 4, nil))
		// log0 ∘ exp0 = id and exp0 ∘ log0 = id.
		rowsNear(t, "log0(exp0(u))", ball.LogMap0(tp, ball.ExpMap0(tp, u, cn), cn).Value, u.Value, 1e-10)
		rowsNear(t, "exp0(log0(x))", ball.ExpMap0(tp, ball.LogMap0(tp, x, cn), cn).Value, x.Value, 1e-10)
		// x ⊕ 0 = x, 0 ⊕ y = y, (−x) ⊕ x = 0.
		rowsNear(t, "x⊕0", ball.MobiusAdd(tp, x, zero, cn).Value, x.Value, 1e-14)
		rowsNear(t, "0⊕y", ball.MobiusAdd(tp, zero, y, cn).Value, y.Value, 1e-14)
		rowsNear(t, "(-x)⊕x", ball.MobiusAdd(tp, tp.Scale(x, -1), x, cn).Value, zero.Value, 1e-12)
		// exp_x(log_x(y)) = y.
		rowsNear(t, "exp_x(log_x(y))", ball.ExpMap(tp, ball.LogMap(tp, x, y, cn), x, cn).Value, y.Value, 1e-8)
		// The identity matrix's Möbius product is the identity.
		rowsNear(t, "I⊗x", ball.MobiusMatVec(tp, tp.Const(eye(4)), x, cn).Value, x.Value, 1e-10)
		// d(0, x) = 2/√c·artanh(√c‖x‖) and d(x, y) = d(y, x).
		d0 := ball.SqDist(tp, zero, x, cn).Value
		dxy := ball.SqDist(tp, x, y, cn).Value
		dyx := ball.SqDist(tp, y, x, cn).Value
		for i := 0; i < 4; i++ {
			nx := mat.Norm(x.Value.RowView(i), 2)
			want := 2 / math.Sqrt(c) * math.Atanh(math.Sqrt(c)*nx)
			if !near(d0.At(i, 0), want*want, 1e-10) {
				t.Errorf("c=%v: d(0, x_%d)² = %v, want %v", c, i, d0.At(i, 0), want*want)
			}
			if !near(dxy.At(i, 0), dyx.At(i, 0), 1e-9) {
				t.Errorf("c=%v: d(x,y)² = %v but d(y,x)² = %v", c, dxy.At(i, 0), dyx.At(i, 0))
			}
		}
		// Parallel transport preserves the Riemannian norm: λ_y‖P u‖ = λ_x‖u‖.
		pu := ball.PTransp(tp, x, y, u, cn).Value
		lx, ly := ball.Lambda(tp, x, cn).Value, ball.Lambda(tp, y, cn).Value
		for i := 0; i < 4; i++ {
			a := ly.At(i, 0) * mat.Norm(pu.RowView(i), 2)
			b := lx.At(i, 0) * mat.Norm(u.Value.RowView(i), 2)
			if !near(a, b, 1e-9) {
				t.Errorf("c=%v row %d: transported norm %v, want %v", c, i, a, b)
			}
		}
		// Projection: rows beyond (1−1e−5)/√c land on it; inside points are unchanged.
		out := tp.Scale(x, 3)
		p := ball.Proj(tp, out, cn).Value
		for i := 0; i < 4; i++ {
			want := math.Min(mat.Norm(out.Value.RowView(i), 2), (1-BallEps)/math.Sqrt(c))
			if got := mat.Norm(p.RowView(i), 2); !near(got, want, 1e-12) {
				t.Errorf("c=%v: projected norm %v, want %v", c, got, want)
			}
		}
		rowsNear(t, "proj(inside)", ball.Proj(tp, tp.Scale(x, 0.5), cn).Value, tp.Scale(x, 0.5).Value, 0)
	}
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

// TestPoincareNoNaN feeds the maps the inputs where they lose precision —
// the origin, points on and beyond the boundary, huge tangent vectors,
// tiny and large curvatures — and checks that neither the values nor the
// gradients are NaN or Inf.
func TestPoincareNoNaN(t *testing.T) {
	var ball Poincare
	for _, c := range []float64{1e-8, 1, 1e4} {
		r := 1 / math.Sqrt(c)
		pts := mat.NewDense(5, 2, []float64{
			0, 0, // origin
			r, 0, // on the boundary
			0, -r * (1 - 1e-17), // within rounding of it
			3 * r, 4 * r, // outside
			1e-300, -1e-300, // denormal-small
		})
		vecs := mat.NewDense(5, 2, []float64{0, 0, 1e6, -1e6, 1e-300, 0, 50, 50, -1e5, 3})
		w := mat.NewDense(2, 2, []float64{1e3, 0, 0, 0})
		type op struct {
			name string
			f    func(tp *autodiff.Tape, x, u, w, c *autodiff.Node) *autodiff.Node
		}
		for _, o := range []op{
			{"proj", func(tp *autodiff.Tape, x, _, _, c *autodiff.Node) *autodiff.Node { return ball.Proj(tp, x, c) }},
			{"expmap0", func(tp *autodiff.Tape, _, u, _, c *autodiff.Node) *autodiff.Node { return ball.ExpMap0(tp, u, c) }},
			{"logmap0", func(tp *autodiff.Tape, x, _, _, c *autodiff.Node) *autodiff.Node { return ball.LogMap0(tp, x, c) }},
			{"mobius-add", func(tp *autodiff.Tape, x, u, _, c *autodiff.Node) *autodiff.Node {
				return ball.MobiusAdd(tp, x, ball.Proj(tp, ball.ExpMap0(tp, u, c), c), c)
			}},
			{"mobius-matvec", func(tp *autodiff.Tape, x, _, w, c *autodiff.Node) *autodiff.Node {
				return ball.MobiusMatVec(tp, w, ball.Proj(tp, x, c), c)
			}},
			{"sqdist", func(tp *autodiff.Tape, x, u, _, c *autodiff.Node) *autodiff.Node {
				return ball.SqDist(tp, ball.Proj(tp, x, c), ball.Proj(tp, ball.ExpMap0(tp, u, c), c), c)
			}},
			{"expmap", func(tp *autodiff.Tape, x, u, _, c *autodiff.Node) *autodiff.Node {
				return ball.ExpMap(tp, u, ball.Proj(tp, x, c), c)
			}},
			{"logmap", func(tp *autodiff.Tape, x, u, _, c *autodiff.Node) *autodiff.Node {
				return ball.LogMap(tp, ball.Proj(tp, x, c), ball.Proj(tp, ball.ExpMap0(tp, u, c), c), c)
			}},
		} {
			tp := autodiff.New(1)
			x, u, wn := tp.Param(mat.DenseCopyOf(pts)), tp.Param(mat.DenseCopyOf(vecs)), tp.Param(mat.DenseCopyOf(w))
			cn := tp.Param(mat.NewDense(1, 1, []float64{c}))
			out := o.f(tp, x, u, wn, cn)
			if !finite(out.Value) {
				t.Errorf("c=%g %s: value not finite: %v", c, o.name, mat.Formatted(out.Value))
				continue
			}
			if err := tp.Backward(tp.SumAll(out)); err != nil {
				t.Fatal(err)
			}
			for _, n := range []*autodiff.Node{x, u, wn, cn} {
				if n.Grad != nil && !finite(n.Grad) {
					t.Errorf("c=%g %s: gradient not finite: %v", c, o.name, mat.Formatted(n.Grad))
				}
			}
		}
	}
}

func TestRiemannianAdamConverges(t *testing.T) {
	// Minimise Σ d(p_i, q_i)² over p on the ball: the points must reach
	// their targets (also targets near the boundary) and stay inside.
	var ball Poincare
	const c = 1.0
	rng := rand.New(rand.NewPCG(5, 5))
	q := ballPoints(rng, c, 3, 0.5, 0.9, 0.98)
	p := mat.NewDense(3, 3, nil)
	for i, raw := 0, p.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = 1e-3 * rng.NormFloat64()
	}
	opt := NewRiemannianAdam(0.05, c, 3, 3)
	var last float64
	for step := 0; step < 600; step++ {
		tp := autodiff.New(1)
		pn := tp.Param(p)
		loss := tp.SumAll(ball.SqDist(tp, pn, tp.Const(q), Scalar(tp, c)))
		if err := tp.Backward(loss); err != nil {
			t.Fatal(err)
		}
		if err := opt.Step(p, pn.Grad); err != nil {
			t.Fatal(err)
		}
		last = loss.Scalar()
		for i := 0; i < 3; i++ {
			if nrm := mat.Norm(p.RowView(i), 2); nrm >= 1/math.Sqrt(c) {
				t.Fatalf("step %d: row %d left the ball (norm %v)", step, i, nrm)
			}
		}
	}
	if last > 1e-4 {
		t.Fatalf("Σ d² = %v after 600 steps, want < 1e-4", last)
	}
	if err := opt.Step(p, mat.NewDense(2, 3, nil)); err == nil {
		t.Fatal("gradient of the wrong shape: no error")
	}
}
