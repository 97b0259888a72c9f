package nn

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// quadratic returns f(x) = ½xᵀAx − bᵀx for a random SPD A (condition
// number about cond) and its minimiser A⁻¹b, solved by gonum.
func quadratic(t *testing.T, n int, cond float64, seed uint64) (Objective, []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	q := randDense(rng, n, n, 1)
	var qr mat.QR
	qr.Factorize(q)
	var o mat.Dense
	qr.QTo(&o)
	diag := mat.NewDiagDense(n, nil)
	for i := 0; i < n; i++ {
		diag.SetDiag(i, math.Pow(cond, float64(i)/float64(n-1)))
	}
	var a mat.Dense
	a.Product(&o, diag, o.T())
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	var xs mat.VecDense
	if err := xs.SolveVec(&a, mat.NewVecDense(n, b)); err != nil {
		t.Fatal(err)
	}
	f := func(x, g []float64) (float64, error) {
		ax := mat.NewVecDense(n, g)
		ax.MulVec(&a, mat.NewVecDense(n, x))
		var v float64
		for i := range x {
			v += 0.5*x[i]*g[i] - b[i]*x[i]
			g[i] -= b[i]
		}
		return v, nil
	}
	return f, xs.RawVector().Data
}

// maxDiff is ‖a − b‖∞.
func maxDiff(a, b []float64) float64 { return floats.Distance(a, b, math.Inf(1)) }

func TestLBFGSQuadraticMinimum(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		cond    float64
		history int
	}{
		{"well conditioned", 30, 10, 100},
		{"ill conditioned", 30, 1e3, 100},
		{"short history", 30, 100, 3}, // pairs are dropped and their storage reused
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, want := quadratic(t, tc.n, tc.cond, 7)
			o := NewLBFGS(1, tc.n)
			// PyTorch's tolerances stop near 1e−5 here (gᵀd > −1e−9); to
			// test the iteration itself, let it run to the minimum.
			o.History, o.TolGrad, o.TolChange = tc.history, 1e-13, 1e-30
			x := make([]float64, tc.n)
			for step := 0; step < 50 && maxDiff(x, want) > 1e-9; step++ {
				if _, err := o.Step(x, f); err != nil {
					t.Fatal(err)
				}
			}
			if d := maxDiff(x, want); d > 1e-8 {
				t.Fatalf("after %d iterations ‖x − A⁻¹b‖∞ = %g", o.Iterations(), d)
			}
			if len(o.dirs) > tc.history {
				t.Fatalf("%d stored pairs, history %d", len(o.dirs), tc.history)
			}
		})
	}
}

// The first iteration ever is a gradient step of length min(1, 1/‖g‖₁)·lr.
func TestLBFGSFirstStep(t *testing.T) {
	f, _ := quadratic(t, 5, 10, 3)
	x := []float64{0.3, -1, 2, 0.5, 0}
	g := make([]float64, 5)
	loss0, _ := f(x, g)
	want := make([]float64, 5)
	step := math.Min(1, 1/floats.Norm(g, 1)) * 0.5
	for i := range x {
		want[i] = x[i] - step*g[i]
	}
	o := NewLBFGS(0.5, 5)
	o.MaxIter = 1
	loss, err := o.Step(x, f)
	if err != nil {
		t.Fatal(err)
	}
	if loss != loss0 {
		t.Fatalf("Step returned loss %v, want the entry loss %v", loss, loss0)
	}
	if d := maxDiff(x, want); d > 1e-15 {
		t.Fatalf("first step %v, want %v", x, want)
	}
	if o.Evals() != 1 || o.Iterations() != 1 {
		t.Fatalf("%d evaluations, %d iterations; want 1, 1 (the last iteration of a Step is not evaluated)", o.Evals(), o.Iterations())
	}
}

// The state carries over: two Steps of 10 iterations give the iterates of
// one Step of 20, bit for bit (no tolerance triggers on this problem).
func TestLBFGSStateCarriesOver(t *testing.T) {
	f, _ := quadratic(t, 40, 1e4, 11)
	x1, x2 := make([]float64, 40), make([]float64, 40)
	o1 := NewLBFGS(1, 40)
	if _, err := o1.Step(x1, f); err != nil {
		t.Fatal(err)
	}
	o2 := NewLBFGS(1, 40)
	o2.MaxIter, o2.MaxEval = 10, 100
	for i := 0; i < 2; i++ {
		if _, err := o2.Step(x2, f); err != nil {
			t.Fatal(err)
		}
	}
	if o1.Iterations() != 20 || o2.Iterations() != 20 {
		t.Fatalf("iterations %d and %d, want 20", o1.Iterations(), o2.Iterations())
	}
	for i := range x1 {
		if x1[i] != x2[i] {
			t.Fatalf("entry %d: one Step %v, two Steps %v", i, x1[i], x2[i])
		}
	}
}

// Softmax regression with an L2 penalty is strictly convex: L-BFGS without
// a line search, Step after Step as TextSGC's epochs, reaches the minimiser
// that gonum's line-searching L-BFGS finds.
func TestLBFGSSoftmaxRegressionMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const n, feats, classes, wd = 200, 12, 4, 1e-2
	x := randDense(rng, n, feats, 1)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = rng.IntN(classes)
	}
	size := feats*classes + classes
	obj := func(theta, grad []float64) (float64, error) {
		w := mat.NewDense(feats, classes, theta[:feats*classes])
		b := theta[feats*classes:]
		var logits mat.Dense
		logits.Mul(x, w)
		AddBias(&logits, b)
		g := mat.NewDense(n, classes, nil)
		loss, err := SoftmaxCrossEntropy(&logits, labels, g)
		if err != nil {
			return 0, err
		}
		gw := mat.NewDense(feats, classes, grad[:feats*classes])
		gw.Mul(x.T(), g)
		ColSums(g, grad[feats*classes:])
		for i, v := range theta[:feats*classes] {
			loss += 0.5 * wd * v * v
			grad[i] += wd * v
		}
		return loss, nil
	}
	theta := make([]float64, size)
	o := NewLBFGS(1, size)
	o.TolGrad, o.TolChange = 1e-12, 1e-30
	for epoch := 0; epoch < 30; epoch++ {
		if _, err := o.Step(theta, obj); err != nil {
			t.Fatal(err)
		}
	}
	res, err := optimize.Minimize(optimize.Problem{
		Func: func(th []float64) float64 { l, _ := obj(th, make([]float64, size)); return l },
		Grad: func(g, th []float64) { _, _ = obj(th, g) },
	}, make([]float64, size), &optimize.Settings{GradientThreshold: 1e-9}, &optimize.LBFGS{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != optimize.GradientThreshold {
		t.Fatalf("gonum stopped with %v", res.Status)
	}
	if d := maxDiff(theta, res.X); d > 1e-6 {
		t.Fatalf("‖θ − θ_gonum‖∞ = %g after %d iterations", d, o.Iterations())
	}
	g := make([]float64, size)
	if _, err := obj(theta, g); err != nil {
		t.Fatal(err)
	}
	if m := floats.Norm(g, math.Inf(1)); m > 1e-6 {
		t.Fatalf("gradient ‖g‖∞ = %g at the end", m)
	}
}

// The evaluation budget bounds a Step; an objective's error stops it.
func TestLBFGSBudgetAndErrors(t *testing.T) {
	f, _ := quadratic(t, 20, 1e4, 2)
	o := NewLBFGS(1, 20)
	o.MaxIter, o.MaxEval = 100, 7
	if _, err := o.Step(make([]float64, 20), f); err != nil {
		t.Fatal(err)
	}
	if o.Evals() != 7 {
		t.Fatalf("%d evaluations, want MaxEval = 7", o.Evals())
	}
	boom := errors.New("boom")
	calls := 0
	failing := func(x, g []float64) (float64, error) {
		if calls++; calls == 3 {
			return 0, boom
		}
		return f(x, g)
	}
	if _, err := NewLBFGS(1, 20).Step(make([]float64, 20), failing); !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	// At a stationary point a Step evaluates once and does not move.
	_, xs := quadratic(t, 20, 1e4, 2)
	x := append([]float64(nil), xs...)
	o = NewLBFGS(1, 20)
	o.TolGrad = 1e-6
	if _, err := o.Step(x, f); err != nil {
		t.Fatal(err)
	}
	if o.Evals() != 1 || maxDiff(x, xs) != 0 {
		t.Fatalf("moved from the minimum: %d evaluations, Δ %g", o.Evals(), maxDiff(x, xs))
	}
}

// Every iterate is x_k + t·d_k with d_k = −H_k·g_k, H_k the BFGS inverse
// Hessian built densely from γI and the last History curvature pairs, as
// the two-loop recursion must give (Nocedal & Wright, algorithm 7.4).
func TestLBFGSDirectionMatchesDenseBFGS(t *testing.T) {
	for _, history := range []int{100, 3} {
		const n = 12
		f, _ := quadratic(t, n, 1e3, 9)
		var xs, gs [][]float64
		rec := func(x, g []float64) (float64, error) {
			v, err := f(x, g)
			xs, gs = append(xs, append([]float64(nil), x...)), append(gs, append([]float64(nil), g...))
			return v, err
		}
		o := NewLBFGS(0.7, n)
		o.History, o.MaxIter, o.TolGrad, o.TolChange = history, 5, 1e-13, 1e-30
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i%3) - 1
		}
		for step := 0; step < 5; step++ {
			if _, err := o.Step(x, rec); err != nil {
				t.Fatal(err)
			}
		}
		if len(xs) < 20 {
			t.Fatalf("history %d: only %d evaluations", history, len(xs))
		}
		type pair struct{ s, y *mat.VecDense }
		var pairs []pair
		gamma := 1.0
		for k := 0; k+1 < len(xs); k++ {
			g := mat.NewVecDense(n, gs[k])
			if k > 0 {
				s, y := mat.NewVecDense(n, nil), mat.NewVecDense(n, nil)
				s.SubVec(mat.NewVecDense(n, xs[k]), mat.NewVecDense(n, xs[k-1]))
				y.SubVec(g, mat.NewVecDense(n, gs[k-1]))
				if ys := mat.Dot(y, s); ys > 1e-10 {
					pairs = append(pairs, pair{s, y})
					if len(pairs) > history {
						pairs = pairs[1:]
					}
					gamma = ys / mat.Dot(y, y)
				}
			}
			h := mat.NewDense(n, n, nil)
			for i := 0; i < n; i++ {
				h.Set(i, i, gamma)
			}
			for _, p := range pairs {
				rho := 1 / mat.Dot(p.y, p.s)
				v := mat.NewDense(n, n, nil)
				v.Outer(-rho, p.y, p.s) // V = I − ρ y sᵀ
				for i := 0; i < n; i++ {
					v.Set(i, i, v.At(i, i)+1)
				}
				var tmp, hn mat.Dense
				tmp.Mul(v.T(), h)
				hn.Mul(&tmp, v)
				ss := mat.NewDense(n, n, nil)
				ss.Outer(rho, p.s, p.s)
				hn.Add(&hn, ss)
				h = &hn
			}
			var d mat.VecDense
			d.MulVec(h, g)
			step := 0.7
			if k == 0 {
				step *= math.Min(1, 1/floats.Norm(gs[0], 1))
			}
			for i := 0; i < n; i++ {
				want := xs[k][i] - step*d.AtVec(i)
				if math.Abs(xs[k+1][i]-want) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("history %d, iterate %d entry %d: %v, dense BFGS gives %v", history, k+1, i, xs[k+1][i], want)
				}
			}
		}
	}
}

// heldBytes counts the float64 vectors o's state holds, in bytes.
func (o *LBFGS) heldBytes() int64 {
	var n int
	for _, v := range [][]float64{o.d, o.prevG, o.g, o.q, o.spareY, o.spareS} {
		n += len(v)
	}
	for i := range o.dirs {
		n += len(o.dirs[i]) + len(o.stps[i])
	}
	return int64(n) * 8
}

// StateBytes bounds what the state holds after each Step, and is reached
// when every iteration stores a pair: a quadratic of 200 unknowns with a
// high condition number does not converge in 3 Steps of 20 iterations
// (60 pairs), and with History 25 the oldest pairs are dropped.
func TestLBFGSStateBytes(t *testing.T) {
	const n = 200
	for _, tc := range []struct {
		name    string
		history int
		steps   int
	}{
		{"textsgc", 100, 3},
		{"history full", 25, 3},
		{"one step", 100, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := quadratic(t, n, 1e8, 5)
			x := make([]float64, n)
			o := NewLBFGS(0.5, n)
			o.History = tc.history
			if got := o.StateBytes(0); got != 6*n*8 {
				t.Fatalf("StateBytes(0) = %d, want %d", got, 6*n*8)
			}
			for s := 1; s <= tc.steps; s++ {
				if _, err := o.Step(x, f); err != nil {
					t.Fatal(err)
				}
				if held, bound := o.heldBytes(), o.StateBytes(s); held > bound {
					t.Fatalf("after %d steps the state holds %d bytes, more than StateBytes %d", s, held, bound)
				}
			}
			pairs := min(tc.history, tc.steps*20-1)
			if len(o.dirs) != pairs {
				t.Fatalf("%d pairs stored, want %d (every iteration but the first stores one)", len(o.dirs), pairs)
			}
			// The bound is tight within two pairs: the one the first
			// iteration cannot store and the spare, allocated by the next
			// iteration (or dropped to make room when the history is full).
			if slack := o.StateBytes(tc.steps) - o.heldBytes(); slack > 4*n*8 {
				t.Fatalf("StateBytes %d exceeds what is held (%d) by %d bytes, more than two pairs", o.StateBytes(tc.steps), o.heldBytes(), slack)
			}
		})
	}
}
