package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// project returns Σ x∘r, a scalar whose gradient is r: it turns any
// operation's output into a loss with a random, non-degenerate gradient.
func project(t *Tape, x *Node, r *mat.Dense) *Node {
	var s float64
	rows, _ := x.Value.Dims()
	for i := 0; i < rows; i++ {
		for j, v := range x.Value.RawRowView(i) {
			s += v * r.At(i, j)
		}
	}
	return t.record(mat.NewDense(1, 1, []float64{s}), func(out *Node) {
		var tmp mat.Dense
		tmp.Scale(out.Grad.At(0, 0), r)
		x.grad().Add(x.Grad, &tmp)
	}, x)
}

func randDense(rng *rand.Rand, r, c int) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i, raw := 0, m.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = rng.NormFloat64()
	}
	return m
}

// randGraph returns an n×n CSR with self loops and about deg random
// neighbours per row (sorted, unique columns), random positive values.
func randGraph(rng *rand.Rand, n, deg int) *sparse.CSR {
	g := &sparse.CSR{Rows: n, Cols: n, Indptr: []int{0}}
	for i := 0; i < n; i++ {
		seen := map[int]bool{i: true}
		for k := 0; k < deg; k++ {
			seen[rng.IntN(n)] = true
		}
		for j := 0; j < n; j++ {
			if seen[j] {
				g.Indices = append(g.Indices, int32(j))
				g.Data = append(g.Data, 0.1+rng.Float64())
			}
		}
		g.Indptr = append(g.Indptr, len(g.Indices))
	}
	return g
}

// checkGrad compares Backward's gradients of f with respect to params
// against central finite differences, entry by entry.
func checkGrad(t *testing.T, name string, params []*mat.Dense, f func(tp *Tape, ps []*Node) *Node) {
	t.Helper()
	tp := New(2)
	nodes := make([]*Node, len(params))
	for i, p := range params {
		nodes[i] = tp.Param(p)
	}
	loss := f(tp, nodes)
	if err := tp.Backward(loss); err != nil {
		t.Fatal(err)
	}
	eval := func() float64 {
		tp := New(1)
		ns := make([]*Node, len(params))
		for i, p := range params {
			ns[i] = tp.Param(p)
		}
		return f(tp, ns).Scalar()
	}
	const h = 1e-6
	checked := 0
	for pi, p := range params {
		raw := p.RawMatrix().Data
		for k := range raw {
			old := raw[k]
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
			if math.Abs(got-want) > 1e-5*math.Max(1, math.Abs(want)) {
				t.Errorf("%s: parameter %d entry %d: gradient %.9g, finite difference %.9g", name, pi, k, got, want)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatalf("%s: no entries checked", name)
	}
}

func TestGradientsAgainstFiniteDifferences(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		n, d, c := 3+rng.IntN(5), 2+rng.IntN(4), 2+rng.IntN(3)
		g := randGraph(rng, n, 2)
		sp := NewSparse(g)
		x := randDense(rng, n, d)
		w := randDense(rng, d, c)
		b := randDense(rng, 1, c)
		r := randDense(rng, n, c)
		rEdges := randDense(rng, g.NNZ(), 1)
		labels := make([]int, n)
		for i := range labels {
			labels[i] = rng.IntN(c)
		}
		rows := []int{0, n - 1, 1}
		dropSeed := rng.Uint64()
		cases := []struct {
			name   string
			params []*mat.Dense
			f      func(tp *Tape, ps []*Node) *Node
		}{
			{"matmul", []*mat.Dense{x, w}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.MatMul(ps[0], ps[1]), r) }},
			{"spmm", []*mat.Dense{x, w}, func(tp *Tape, ps []*Node) *Node {
				return project(tp, tp.SpMM(sp, tp.MatMul(ps[0], ps[1])), r)
			}},
			{"spmm-dropout", []*mat.Dense{w}, func(tp *Tape, ps []*Node) *Node {
				xs := sparse.FromDense(x)
				return project(tp, tp.SpMMDropout(xs, ps[0], 0.4, rand.New(rand.NewPCG(dropSeed, 1))), r)
			}},
			{"bias", []*mat.Dense{x, w, b}, func(tp *Tape, ps []*Node) *Node {
				return project(tp, tp.AddBias(tp.MatMul(ps[0], ps[1]), ps[2]), r)
			}},
			{"relu", []*mat.Dense{x, w}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.ReLU(tp.MatMul(ps[0], ps[1])), r) }},
			{"elu", []*mat.Dense{x, w}, func(tp *Tape, ps []*Node) *Node { return project(tp, tp.ELU(tp.MatMul(ps[0], ps[1])), r) }},
			{"leakyrelu", []*mat.Dense{x, w}, func(tp *Tape, ps []*Node) *Node {
				return project(tp, tp.LeakyReLU(tp.MatMul(ps[0], ps[1]), 0.2), r)
			}},
			{"dropout", []*mat.Dense{x, w}, func(tp *Tape, ps []*Node) *Node {
				return project(tp, tp.Dropout(tp.MatMul(ps[0], ps[1]), 0.5, rand.New(rand.NewPCG(dropSeed, 2))), r)
			}},
			{"colslice-concat", []*mat.Dense{x, w}, func(tp *Tape, ps []*Node) *Node {
				h := tp.MatMul(ps[0], ps[1])
				return project(tp, tp.ConcatCols(tp.ColSlice(h, 1, c), tp.ColSlice(h, 0, 1)), r)
			}},
			{"mean-add-scale", []*mat.Dense{x, w}, func(tp *Tape, ps []*Node) *Node {
				h := tp.MatMul(ps[0], ps[1])
				return project(tp, tp.Add(tp.Mean(h, tp.ReLU(h), tp.Scale(h, -3)), h), r)
			}},
			{"sumsquares", []*mat.Dense{w}, func(tp *Tape, ps []*Node) *Node { return tp.Scale(tp.SumSquares(ps[0]), 0.7) }},
			{"crossentropy", []*mat.Dense{x, w, b}, func(tp *Tape, ps []*Node) *Node {
				l, err := tp.CrossEntropy(tp.AddBias(tp.MatMul(ps[0], ps[1]), ps[2]), rows, labels)
				if err != nil {
					t.Fatal(err)
				}
				return l
			}},
			{"edge-attention", []*mat.Dense{x, w, mat.NewDense(c, 1, []float64{0.3, -0.2, 0.5, 0.1}[:c]), mat.NewDense(c, 1, []float64{-0.4, 0.6, 0.2, -0.1}[:c])},
				func(tp *Tape, ps []*Node) *Node {
					h := tp.MatMul(ps[0], ps[1])
					e := tp.LeakyReLU(tp.EdgeScores(g, tp.MatMul(h, ps[2]), tp.MatMul(h, ps[3])), 0.2)
					a := tp.Dropout(tp.EdgeSoftmax(g, e), 0.3, rand.New(rand.NewPCG(dropSeed, 3)))
					return project(tp, tp.EdgeAggregate(g, a, h), r)
				}},
			{"edge-softmax", []*mat.Dense{x, w, mat.NewDense(c, 1, []float64{0.3, -0.2, 0.5, 0.1}[:c])},
				func(tp *Tape, ps []*Node) *Node {
					s := tp.MatMul(tp.MatMul(ps[0], ps[1]), ps[2])
					return project(tp, tp.EdgeSoftmax(g, tp.EdgeScores(g, s, s)), rEdges)
				}},
		}
		for _, tc := range cases {
			checkGrad(t, tc.name, tc.params, tc.f)
		}
	}
}

func TestCrossEntropyValue(t *testing.T) {
	tp := New(1)
	logits := tp.Const(mat.NewDense(2, 3, []float64{1, 2, 3, 0, 0, 0}))
	l, err := tp.CrossEntropy(logits, []int{0, 1}, []int{2, 0})
	if err != nil {
		t.Fatal(err)
	}
	want := (math.Log(math.Exp(1)+math.Exp(2)+math.Exp(3)) - 3 + math.Log(3)) / 2
	if math.Abs(l.Scalar()-want) > 1e-15 {
		t.Fatalf("cross-entropy %v, want %v", l.Scalar(), want)
	}
	for _, bad := range []struct {
		rows, labels []int
	}{{nil, []int{0, 0}}, {[]int{2}, []int{0, 0}}, {[]int{0}, []int{3, 0}}, {[]int{0}, []int{0}}} {
		if _, err := tp.CrossEntropy(logits, bad.rows, bad.labels); err == nil {
			t.Errorf("rows %v labels %v: no error", bad.rows, bad.labels)
		}
	}
}

func TestDropoutDeterministicAndScaled(t *testing.T) {
	x := mat.NewDense(50, 40, nil)
	for i, raw := 0, x.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = 1
	}
	run := func() *mat.Dense {
		tp := New(1)
		return tp.Dropout(tp.Const(x), 0.6, rand.New(rand.NewPCG(3, 4))).Value
	}
	a, b := run(), run()
	if !mat.Equal(a, b) {
		t.Fatal("same seed, different masks")
	}
	kept := 0
	for _, v := range a.RawMatrix().Data {
		switch v {
		case 0:
		case 2.5:
			kept++
		default:
			t.Fatalf("entry %v, want 0 or 1/(1-0.6)", v)
		}
	}
	if frac := float64(kept) / 2000; math.Abs(frac-0.4) > 0.05 {
		t.Fatalf("kept fraction %.3f, want about 0.4", frac)
	}
}

func TestBackwardNeedsScalar(t *testing.T) {
	tp := New(1)
	if err := tp.Backward(tp.Param(mat.NewDense(2, 1, nil))); err == nil {
		t.Fatal("Backward of a 2×1 value: no error")
	}
}

// TestActivationsEqualElementwise compares ReLU and ELU, whose loops are
// written out, with elementwise and the functions they had before, bit for
// bit: values and gradients, on entries that include ±0, tiny and large
// ones of both signs.
func TestActivationsEqualElementwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 17))
	x := randDense(rng, 40, 7)
	raw := x.RawMatrix().Data
	copy(raw, []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 700, -700, 1e-17, -1e-17, 0.5, -0.5})
	g := randDense(rng, 40, 7)
	for _, a := range []struct {
		name string
		op   func(*Tape, *Node) *Node
		f    func(float64) float64
		df   func(x, y float64) float64
	}{
		{"relu", (*Tape).ReLU, func(v float64) float64 { return math.Max(v, 0) }, func(x, _ float64) float64 {
			if x > 0 {
				return 1
			}
			return 0
		}},
		{"elu", (*Tape).ELU, func(v float64) float64 {
			if v > 0 {
				return v
			}
			return math.Expm1(v)
		}, func(x, y float64) float64 {
			if x > 0 {
				return 1
			}
			return y + 1
		}},
	} {
		run := func(ref bool) (*mat.Dense, *mat.Dense) {
			tp := New(1)
			p := tp.Param(mat.DenseCopyOf(x))
			var y *Node
			if ref {
				y = tp.elementwise(p, a.f, a.df)
			} else {
				y = a.op(tp, p)
			}
			if err := tp.Backward(project(tp, y, g)); err != nil {
				t.Fatal(err)
			}
			return y.Value, p.Grad
		}
		wantV, wantG := run(true)
		gotV, gotG := run(false)
		if !bitsEqual(gotV, wantV) || !bitsEqual(gotG, wantG) {
			t.Errorf("%s: values equal %v, gradients equal %v, want both", a.name, bitsEqual(gotV, wantV), bitsEqual(gotG, wantG))
		}
	}
}
