package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/internal/vec"
	"github.com/hylaflow/hylaflow/sparse"
)

// factoredProblem builds a TextGCN-like corpus graph: docs documents
// (labelled, first), words word nodes, each document linked to a few words
// of its class's vocabulary and a few random ones, word–word links, and
// isolated words (so some columns of S² are constant on the documents and
// dropped). It returns S = D^-1/2 (A + I) D^-1/2, the documents' rows of
// S, the labels and a split.
func factoredProblem(t testing.TB, seed uint64, docs, words, classes int) (s, a *sparse.CSR, data *Data) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 17))
	n := docs + words
	var ri, ci []int
	var v []float64
	edge := func(i, j int, w float64) {
		ri, ci, v = append(ri, i, j), append(ci, j, i), append(v, w, w)
	}
	labels := make([]int, n)
	vocab := words - words/10 // the last tenth stays isolated
	seen := map[[2]int]bool{}
	for d := 0; d < docs; d++ {
		y := rng.IntN(classes)
		labels[d] = y
		for range 8 {
			w := docs + (y*vocab/classes + rng.IntN(vocab/classes))
			if rng.Float64() < 0.3 {
				w = docs + rng.IntN(vocab)
			}
			if !seen[[2]int{d, w}] {
				seen[[2]int{d, w}] = true
				edge(d, w, 0.5+rng.Float64())
			}
		}
	}
	for range words {
		i, j := docs+rng.IntN(vocab), docs+rng.IntN(vocab)
		if i < j && !seen[[2]int{i, j}] {
			seen[[2]int{i, j}] = true
			edge(i, j, rng.Float64())
		}
	}
	for w := docs; w < n; w++ {
		labels[w] = -1
	}
	adj, err := sparse.FromCOO(n, n, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = sparse.SymNormalize(adj); err != nil {
		t.Fatal(err)
	}
	rows, all := make([]int, docs), make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	for j := range all {
		all[j] = j
	}
	if a, err = s.Submatrix(rows, all); err != nil {
		t.Fatal(err)
	}
	perm := rng.Perm(docs)
	nTr, nVal := docs*6/10, docs/10
	data = &Data{Labels: labels[:docs], Classes: classes,
		Train: perm[:nTr], Val: perm[nTr : nTr+nVal], Test: perm[nTr+nVal:]}
	return s, a, data
}

// TestMinMaxColumnsMatchesGonum: the factored X (A·B, min-max scaled on
// the training rows, constant columns dropped) against gonum's dense
// product and a direct scaling, for K = 1 (B = nil) and K = 2.
func TestMinMaxColumnsMatchesGonum(t *testing.T) {
	s, a, data := factoredProblem(t, 1, 120, 200, 3)
	ctx := context.Background()
	for _, withB := range []bool{false, true} {
		b := s
		if !withB {
			b = nil
		}
		f, err := MinMaxColumns(ctx, a, b, data.Train, 1)
		if err != nil {
			t.Fatal(err)
		}
		f3, err := MinMaxColumns(ctx, a, b, data.Train, 3)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(f.Cols, f.Lo, f.Hi) != fmt.Sprint(f3.Cols, f3.Lo, f3.Hi) {
			t.Fatalf("B %v: the columns and ranges differ between 1 and 3 workers", withB)
		}
		p := a.ToDense()
		if withB {
			p.Mul(p, s.ToDense())
		}
		_, n := p.Dims()
		var cols []int
		for j := 0; j < n; j++ {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, i := range data.Train {
				lo, hi = math.Min(lo, p.At(i, j)), math.Max(hi, p.At(i, j))
			}
			if hi-lo > 1e-15 {
				cols = append(cols, j)
			}
		}
		if fmt.Sprint(cols) != fmt.Sprint(f.Cols) {
			t.Fatalf("B %v: kept columns %v, want %v", withB, f.Cols, cols)
		}
		if len(cols) == n || len(cols) < n/2 {
			t.Fatalf("B %v: %d of %d columns kept; the problem should drop some, not most", withB, len(cols), n)
		}
		x, err := f.Dense(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for b, j := range f.Cols {
			for i := 0; i < a.Rows; i++ {
				want := (p.At(i, j) - f.Lo[b]) / (f.Hi[b] - f.Lo[b])
				worst = math.Max(worst, math.Abs(x.At(i, b)-want))
			}
		}
		if worst > 1e-12 {
			t.Fatalf("B %v: dense X differs from gonum's by %g", withB, worst)
		}
	}
}

// relErr is max|got − want| / max|want|.
func relErr(got, want []float64) float64 {
	var d, m float64
	for i := range want {
		d = math.Max(d, math.Abs(got[i]-want[i]))
		m = math.Max(m, math.Abs(want[i]))
	}
	if m == 0 {
		return d
	}
	return d / m
}

// factoredTolerance bounds the relative difference (max-norm, relative to
// the largest entry) between the factored products and the dense X's: the
// two sum in other orders and the factored one subtracts the shift
// loᵀ·D·Y after the sum, so entries lose up to a few digits to
// cancellation where min-max shifts a column by much more than its range.
const factoredTolerance = 1e-11

// TestFactoredMatchesDense: the logits, the gradients of every parameter
// and a short training run with the factored input agree with the dense
// X's (the reference) to factoredTolerance, for HyLa, RFF and SGC (Adam
// and L-BFGS), with and without a second factor.
func TestFactoredMatchesDense(t *testing.T) {
	s, a, data := factoredProblem(t, 2, 700, 900, 4)
	ctx := context.Background()
	for _, tc := range []struct {
		model Model
		opt   string
		withB bool
	}{{ModelHyLa, "adam", true}, {ModelRFF, "adam", true}, {ModelSGC, "adam", true}, {ModelSGC, "lbfgs", true}, {ModelHyLa, "adam", false}} {
		t.Run(fmt.Sprintf("%s-%s-B%v", tc.model, tc.opt, tc.withB), func(t *testing.T) {
			b := s
			if !tc.withB {
				b = nil
			}
			f, err := MinMaxColumns(ctx, a, b, data.Train, 2)
			if err != nil {
				t.Fatal(err)
			}
			x, err := f.Dense(ctx, 2)
			if err != nil {
				t.Fatal(err)
			}
			dd, fd := *data, *data
			dd.X, fd.Factored = x, f
			cfg := Config{Model: tc.model, Level: LevelFeatures, Epochs: 8, LREmbedding: 0.05, LRClassifier: 0.01,
				InitScale: 0.3, Workers: 2, Optimizer: tc.opt}
			if tc.opt == "lbfgs" {
				cfg.LRClassifier, cfg.Epochs = 1, 3
			}
			mk := func(d *Data) *trainer {
				tr, err := newTrainer(d, featureMap(t, tc.model, 4, 40, 3, 0.5), nil, cfg, rand.New(rand.NewPCG(5, 6)))
				if err != nil {
					t.Fatal(err)
				}
				if err := tr.forward(ctx); err != nil {
					t.Fatal(err)
				}
				if err := tr.lossGrad(ctx); err != nil {
					t.Fatal(err)
				}
				return tr
			}
			td, tf := mk(&dd), mk(&fd)
			for _, c := range []struct {
				name      string
				got, want []float64
			}{
				{"training logits", tf.logTr.RawMatrix().Data, td.logTr.RawMatrix().Data},
				{"validation logits", tf.logVal.RawMatrix().Data, td.logVal.RawMatrix().Data},
				{"(∂L/∂Y)ᵀ", tf.gyT.RawMatrix().Data, td.gyT.RawMatrix().Data},
				{"(∂L/∂W)ᵀ", tf.gwT.RawMatrix().Data, td.gwT.RawMatrix().Data},
				{"∂L/∂b", tf.gb, td.gb},
			} {
				e := relErr(c.got, c.want)
				t.Logf("%s: relative error %.2g", c.name, e)
				if e > factoredTolerance {
					t.Fatalf("%s: factored and dense differ by %.3g (relative), want ≤ %g", c.name, e, factoredTolerance)
				}
			}
			if tf.z != nil {
				if e := relErr(tf.gz.RawMatrix().Data, td.gz.RawMatrix().Data); e > factoredTolerance {
					t.Fatalf("∂L/∂Z: factored and dense differ by %.3g (relative)", e)
				}
			}
			rd, err := td.run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			rf, err := tf.run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if e := relErr(rf.W.RawMatrix().Data, rd.W.RawMatrix().Data); e > 1e-9 {
				t.Fatalf("W after %d epochs: factored and dense differ by %.3g (relative)", cfg.Epochs, e)
			}
			if rf.Test != rd.Test || rf.Val != rd.Val {
				t.Fatalf("metrics: factored test %v val %v, dense %v %v", rf.Test, rf.Val, rd.Test, rd.Val)
			}
			if tc.model == ModelSGC && rf.Test < 0.5 {
				t.Fatalf("SGC test accuracy %v: the problem should be learnable (4 classes)", rf.Test)
			}
		})
	}
}

// TestFactoredDeterminism: the factored path gives the same bits for 1, 2
// and 3 workers and on every kernel path this CPU has.
func TestFactoredDeterminism(t *testing.T) {
	s, a, data := factoredProblem(t, 3, 900, 1200, 5)
	f, err := MinMaxColumns(context.Background(), a, s, data.Train, 2)
	if err != nil {
		t.Fatal(err)
	}
	fd := *data
	fd.Factored = f
	refs := map[Model]*Result{}
	for _, arch := range vec.Available() {
		restore, err := vec.Use(arch)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2, 3} {
			for _, model := range []Model{ModelHyLa, ModelSGC} {
				res := runOnce(t, &fd, model, LevelFeatures, workers, 4)
				ref := refs[model]
				if ref == nil {
					refs[model] = res
					continue
				}
				if !sameBits(res.W.RawMatrix().Data, ref.W.RawMatrix().Data) || (res.Z != nil && !sameBits(res.Z.RawMatrix().Data, ref.Z.RawMatrix().Data)) {
					t.Fatalf("%s %s, %d workers: W or Z differ from the first run's bits", model, arch, workers)
				}
				for i := range res.Curves {
					if res.Curves[i] != ref.Curves[i] {
						t.Fatalf("%s, %d workers: epoch %d: %+v vs %+v", arch, workers, i, res.Curves[i], ref.Curves[i])
					}
				}
			}
		}
		restore()
	}
}
